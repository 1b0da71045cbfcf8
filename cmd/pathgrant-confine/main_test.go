package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pathgrant/internal/buildcheck"
	"pathgrant/sandbox"
	"pathgrant/sandbox/kernel"
	"pathgrant/sandbox/rules"
)

// TestLeanDependencies: the front end and the inner step link the rule
// types, the Landlock code, the supervisor of held opens, x/sys and the
// path defaults, and nothing of
// the policy side (sandbox, guard but its protected-set table, ipc, the
// shell parser, the store, the UI; the socket protocol, package wire, is
// stdlib only), no net package, no regexp, no cgo: their start-up is on the path of
// every confined command.
func TestLeanDependencies(t *testing.T) {
	deps := buildcheck.Deps(t, "pathgrant/cmd/pathgrant-confine")
	allowed := []string{"pathgrant/cmd/pathgrant-confine", "pathgrant/sandbox/kernel", "pathgrant/sandbox/rules", "pathgrant/sandbox/launch", "pathgrant/sandbox/frontend", "pathgrant/sandbox/afterrun", "pathgrant/sandbox/supervise", "pathgrant/guard/protected", "pathgrant/appdirs", "pathgrant/wire",
		"github.com/landlock-lsm/go-landlock/", "golang.org/x/sys/", "kernel.org/pub/linux/libs/security/libcap/psx"}
	for _, d := range deps {
		first, _, _ := strings.Cut(d, "/")
		thirdParty := strings.Contains(first, ".") || first == "pathgrant"
		switch {
		case thirdParty && !slices.ContainsFunc(allowed, func(a string) bool { return d == a || strings.HasPrefix(d, a) && strings.HasSuffix(a, "/") }):
			t.Errorf("pathgrant-confine depends on %s", d)
		case slices.Contains([]string{"net", "net/http", "os/exec", "regexp", "log/slog", "runtime/cgo", "encoding/gob"}, d):
			t.Errorf("pathgrant-confine depends on %s", d)
		}
	}
	if !slices.Contains(deps, "pathgrant/sandbox/kernel") {
		t.Errorf("pathgrant-confine does not use pathgrant/sandbox/kernel: %v", deps)
	}
}

// buildConfine builds the binary as scripts/run does: static, no cgo.
func buildConfine(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "pathgrant-confine")
	cmd := exec.Command(buildcheck.GoTool(), "build", "-o", out, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if data, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, data)
	}
	return out
}

// TestConfine runs the binary on jobs as bubblewrap would (the job at
// descriptor 3): the command runs under the rules, and a job it cannot
// read or enforce runs nothing.
func TestConfine(t *testing.T) {
	if _, err := kernel.Available(kernel.ABI); err != nil {
		t.Skipf("no usable Landlock on this kernel: %v", err)
	}
	bin := buildConfine(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work, secret := root+"/work", root+"/secret.txt"
	for path, data := range map[string]string{work + "/a.txt": "work\n", secret: "SECRET\n"} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	rs := append(sandbox.SystemRules(), sandbox.Rule{Path: work, Access: sandbox.ReadWrite, Why: "workspace"})
	job := func(script string) string {
		data, err := json.Marshal(rules.Job{Rules: rs, Path: sh, Argv: []string{"sh", "-c", script}})
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	tests := []struct {
		name, job string
		args      []string
		code      int
		want      string // in the output
	}{
		{"allowed read", job("cat " + work + "/a.txt"), []string{"3"}, 0, "work"},
		{"denied read", job("cat " + secret), []string{"3"}, 1, "Permission denied"},
		{"write in the workspace", job("echo x > " + work + "/b && cat " + work + "/b"), []string{"3"}, 0, "x"},
		{"no command in the job", `{"rules":[],"path":"/bin/sh","argv":[]}`, []string{"3"}, kernel.ExitRefused, "no command"},
		{"not a job", "{", []string{"3"}, kernel.ExitRefused, "sandbox job"},
		{"bad descriptor", job("true"), []string{"x"}, kernel.ExitRefused, "bad descriptor"},
		{"no descriptor", job("true"), nil, kernel.ExitRefused, "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := runConfine(t, bin, tt.job, tt.args)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d, output %q; want exit %d and %q", code, out, tt.code, tt.want)
			}
		})
	}
}

// runConfine runs bin with job at descriptor 3 and returns its status and
// combined output.
func runConfine(t *testing.T, bin, job string, args []string) (int, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "job")
	if err := os.WriteFile(path, []byte(job), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(bin, args...)
	cmd.ExtraFiles = []*os.File{f}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	case err != nil:
		t.Fatal(err)
	}
	return 0, string(out)
}
