package differential

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pathgrant/guard"
	"pathgrant/sandbox"
	"pathgrant/sandbox/kernel"
	"pathgrant/wire"
)

// helperEnv makes the test binary a helper that confines itself with the
// rules it is given and execs bash -c on the command.
const helperEnv = "PATHGRANT_DIFF_HELPER"

// job is what the helper runs.
type job struct {
	Rules  []sandbox.Rule
	Dir    string
	Script string
	Env    []string
}

func TestMain(m *testing.M) {
	if raw := os.Getenv(helperEnv); raw != "" {
		os.Exit(helperMain(raw))
	}
	os.Exit(m.Run())
}

func helperMain(raw string) int {
	var j job
	if err := json.Unmarshal([]byte(raw), &j); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 125
	}
	rs, err := kernel.NewRuleset(j.Rules)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 125
	}
	if err := os.Chdir(j.Dir); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 125
	}
	fmt.Fprintln(os.Stderr, "helper:", rs.Exec("/bin/bash", []string{"bash", "-c", j.Script}, j.Env, 0, nil))
	return 125
}

// tree is one scratch tree: $HOME with a workspace, a read-only area, a
// Downloads-like area with one granted file, a secret area, links that
// lead out of the workspace, and a private tmp dir.
type tree struct {
	root, work string
	policy     *guard.Compiled
	grants     *guard.GrantSet
	rules      []sandbox.Rule
}

var treeFiles = []string{"work/a.txt", "work/src/b.txt", "work/sub/.keep", "ro/doc.md", "dl/report.csv",
	"dl/granted.csv", "secret/key", "secret/sub/inner"}

var treeLinks = map[string]string{"work/link_out": "../secret", "work/link_ro": "../ro",
	"work/link_dl": "../dl", "work/link_sub": "../secret/sub"}

func newTree(t *testing.T) *tree {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := &tree{root: root, work: root + "/work"}
	if err := tr.reset(); err != nil {
		t.Fatal(err)
	}
	p := guard.Policy{
		SessionPolicy: guard.SessionPolicy{Cwd: tr.work, Workspace: []string{tr.work}, ReadOnly: []string{root + "/ro"}},
		DevicePolicy:  guard.DevicePolicy{EligibleReadOnly: []string{root + "/dl"}},
	}
	if tr.policy, err = p.Compile(root); err != nil {
		t.Fatal(err)
	}
	granted := root + "/dl/granted.csv"
	tr.grants = guard.NewGrantSet()
	tr.grants.Add(guard.Grant{ID: "g1", Op: guard.OpRead, Path: granted, Kind: guard.KindFile})
	in := sandbox.Input{
		Policy: wire.Policy{Cwd: tr.work, Workspace: []string{tr.work}, ReadOnly: []string{root + "/ro"},
			Grants: []guard.Scope{{Op: guard.OpRead, Path: granted, Kind: guard.KindFile}}},
		TmpDir: root + "/tmp",
		System: sandbox.SystemRules(),
	}
	if tr.rules, err = sandbox.Build(in, sandbox.OSFS{}); err != nil {
		t.Fatal(err)
	}
	return tr
}

// reset rebuilds the tree from scratch, whatever the last command did.
func (tr *tree) reset() error {
	entries, err := os.ReadDir(tr.root)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(tr.root, e.Name())); err != nil {
			return fmt.Errorf("reset: %w", err)
		}
	}
	for _, f := range treeFiles {
		p := filepath.Join(tr.root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("reset: %w", err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			return fmt.Errorf("reset: %w", err)
		}
	}
	for link, target := range treeLinks {
		if err := os.Symlink(target, filepath.Join(tr.root, link)); err != nil {
			return fmt.Errorf("reset: %w", err)
		}
	}
	return os.MkdirAll(tr.root+"/tmp", 0o700)
}

// refusal reports whether output shows the kernel refusing a path:
// Landlock answers EACCES, and EXDEV for a link or rename that would
// widen a file's rights.
func refusal(output string) bool {
	return strings.Contains(output, "Permission denied") || strings.Contains(output, "Invalid cross-device link") ||
		strings.Contains(output, "Operation not permitted")
}

// runConfined runs cmd with bash under the tree's Landlock rules and
// returns its combined output.
func (tr *tree) runConfined(cmd string) (string, error) {
	raw, err := json.Marshal(job{Rules: tr.rules, Dir: tr.work, Script: cmd,
		Env: []string{"PATH=/usr/bin:/bin", "LANG=C", "HOME=" + tr.root, "TMPDIR=" + tr.root + "/tmp"}})
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	c.Env = []string{helperEnv + "=" + string(raw)}
	out, err := c.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ee.ExitCode() == 125 && strings.Contains(string(out), "helper:") {
			return string(out), fmt.Errorf("helper failed: %s", out)
		}
		err = nil
	}
	return string(out), err
}

// result is the outcome of one generated command.
type result struct {
	cmd, verdict, output string
	refused              bool
}

// check judges cmd with the guard on a fresh tree and, if it is allowed,
// runs it for real on a fresh tree.
func (tr *tree) check(cmd string) (result, error) {
	if err := tr.reset(); err != nil {
		return result{}, err
	}
	res := result{cmd: cmd, verdict: "error"}
	d, err := guard.Evaluate(tr.policy, tr.grants, guard.Request{Shell: cmd})
	if err != nil {
		return res, nil
	}
	res.verdict = string(d.Verdict)
	if d.Verdict != guard.Allow {
		return res, nil
	}
	if err := tr.reset(); err != nil {
		return res, err
	}
	out, err := tr.runConfined(cmd)
	res.output, res.refused = out, refusal(out)
	return res, err
}

// commandCount is how many commands to generate: PATHGRANT_DIFF_N, else
// 5000, or 400 with -short.
func commandCount(t *testing.T) int {
	if v := os.Getenv("PATHGRANT_DIFF_N"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("PATHGRANT_DIFF_N=%q is not a positive count", v)
		}
		return n
	}
	if testing.Short() {
		return 400
	}
	return 5000
}

func seed(t *testing.T) uint64 {
	if v := os.Getenv("PATHGRANT_DIFF_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("PATHGRANT_DIFF_SEED=%q: %v", v, err)
		}
		return s
	}
	return 20260101
}

// TestGuardAgainstKernel is the differential test: no command the guard
// allows may be refused a path by the kernel under the same policy.
func TestGuardAgainstKernel(t *testing.T) {
	if _, err := kernel.Available(kernel.ABI); err != nil {
		t.Skipf("no usable Landlock on this kernel: %v", err)
	}
	n, s := commandCount(t), seed(t)
	g := grammar{r: rand.New(rand.NewPCG(s, s>>1|1))}
	cmds := make([]string, n)
	for i := range cmds {
		cmds[i] = g.command(3)
	}
	workers := max(2, runtime.GOMAXPROCS(0))
	trees := make([]*tree, workers)
	for i := range trees {
		trees[i] = newTree(t)
	}
	var next, allowed, failures atomic.Int64
	var mu sync.Mutex
	var failed []result
	var wg sync.WaitGroup
	for _, tr := range trees {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				res, err := tr.check(cmds[i])
				if err != nil {
					t.Errorf("%q: %v", cmds[i], err)
					return
				}
				if res.verdict == string(guard.Allow) {
					allowed.Add(1)
				}
				if res.refused {
					failures.Add(1)
					mu.Lock()
					failed = append(failed, res)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for i, f := range failed {
		if i == 20 {
			t.Errorf("... and %d more", len(failed)-20)
			break
		}
		t.Errorf("guard allowed, kernel refused:\n  %s\n  %s", f.cmd, strings.TrimSpace(f.output))
	}
	t.Logf("differential: %d commands (seed %d), %d allowed by the guard, %d refused by the kernel after an allow",
		n, s, allowed.Load(), failures.Load())
	fmt.Printf("differential: %d commands, %d allowed, %d failures\n", n, allowed.Load(), failures.Load())
}
