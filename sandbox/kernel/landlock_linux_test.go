package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"pathgrant/sandbox/rules"
)

// helperEnv makes the test binary a helper that builds a ruleset and execs
// a command under it, as `pathgrant exec` does.
const helperEnv = "PATHGRANT_KERNEL_TEST_HELPER"

// helperJob is what the helper does: build rules, optionally rename
// SwapFrom over SwapTo after the ruleset is built, then exec Argv.
type helperJob struct {
	Rules            []rules.Rule
	SwapFrom, SwapTo string
	Argv             []string
	Isolate          bool
}

func TestMain(m *testing.M) {
	if job := os.Getenv(helperEnv); job != "" {
		os.Exit(helperMain(job))
	}
	os.Exit(m.Run())
}

func helperMain(raw string) int {
	var job helperJob
	if err := json.Unmarshal([]byte(raw), &job); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 125
	}
	rs, err := NewRuleset(job.Rules)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 125
	}
	if job.SwapFrom != "" {
		if err := os.Rename(job.SwapFrom, job.SwapTo); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 125
		}
	}
	rs.Isolate = job.Isolate
	path, err := exec.LookPath(job.Argv[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 125
	}
	fmt.Fprintln(os.Stderr, "helper:", rs.Exec(path, job.Argv, []string{"PATH=/usr/bin:/bin", "LANG=C"}, 0, nil))
	return 125
}

func requireLandlock(t *testing.T) {
	t.Helper()
	if _, err := Available(ABI); err != nil {
		t.Skipf("no usable Landlock on this kernel: %v", err)
	}
}

func TestAvailable(t *testing.T) {
	tests := []struct {
		name   string
		probe  Probe
		wantOK bool
	}{
		{"kernel without landlock", func() (int, error) { return 0, syscall.ENOSYS }, false},
		{"landlock disabled at boot", func() (int, error) { return 0, syscall.EOPNOTSUPP }, false},
		{"ABI too old for truncate and ioctl", func() (int, error) { return 4, nil }, false},
		{"ABI 5", func() (int, error) { return 5, nil }, true},
		{"ABI 7", func() (int, error) { return 7, nil }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Available(tt.probe)
			if tt.wantOK != (err == nil) {
				t.Fatalf("Available = %v, want ok=%v", err, tt.wantOK)
			}
			if err != nil && !errors.Is(err, ErrUnavailable) {
				t.Errorf("error %v does not wrap ErrUnavailable", err)
			}
		})
	}
}

// TestRightsMatchLandlock: rules.Access carries Landlock's own bits.
func TestRightsMatchLandlock(t *testing.T) {
	pairs := []struct {
		ours   rules.Access
		theirs uint64
	}{
		{rules.Execute, ll.AccessFSExecute}, {rules.WriteFile, ll.AccessFSWriteFile},
		{rules.ReadFile, ll.AccessFSReadFile}, {rules.ReadDir, ll.AccessFSReadDir},
		{rules.RemoveDir, ll.AccessFSRemoveDir}, {rules.RemoveFile, ll.AccessFSRemoveFile},
		{rules.MakeChar, ll.AccessFSMakeChar}, {rules.MakeDir, ll.AccessFSMakeDir},
		{rules.MakeReg, ll.AccessFSMakeReg}, {rules.MakeSock, ll.AccessFSMakeSock},
		{rules.MakeFifo, ll.AccessFSMakeFifo}, {rules.MakeBlock, ll.AccessFSMakeBlock},
		{rules.MakeSym, ll.AccessFSMakeSym}, {rules.Refer, ll.AccessFSRefer},
		{rules.Truncate, ll.AccessFSTruncate}, {rules.IoctlDev, ll.AccessFSIoctlDev},
	}
	for _, p := range pairs {
		if uint64(p.ours) != p.theirs {
			t.Errorf("%v = %#x, Landlock has %#x", p.ours, uint64(p.ours), p.theirs)
		}
	}
	if uint64(config(7).HandledAccessFS) != uint64(rules.Handled) {
		t.Errorf("handled %v, want %v", config(7).HandledAccessFS, rules.Handled)
	}
}

type testTree struct {
	root, work, granted, secret, ro string
}

func newTestTree(t *testing.T) testTree {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := testTree{root: root, work: root + "/work", granted: root + "/dl/granted.txt", secret: root + "/secret/secret.txt", ro: root + "/ro"}
	for path, content := range map[string]string{
		tr.work + "/a.txt": "workspace\n", tr.granted: "granted\n", tr.secret: "SECRET\n",
		root + "/secret/copy.txt": "SECRET-COPY\n", tr.ro + "/data.txt": "ro\n",
	} {
		writeFile(t, path, content)
	}
	return tr
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

func (tr testTree) rules() []rules.Rule {
	return append(systemRules(),
		rules.Rule{Path: tr.work, Access: rules.ReadWrite, Why: "workspace"},
		rules.Rule{Path: tr.ro, Access: rules.ReadOnly, Why: "read-only root"},
		rules.Rule{Path: tr.granted, Access: rules.ReadFile, File: true, Why: "grant"})
}

// runHelper runs sh -c script under job's rules and returns the status and
// the combined output.
func runHelper(t *testing.T, job helperJob, script string) (int, string) {
	t.Helper()
	job.Argv = []string{"sh", "-c", script}
	raw, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+string(raw))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	case err != nil:
		t.Fatalf("helper: %v", err)
	}
	return 0, string(out)
}

func TestEnforced(t *testing.T) {
	requireLandlock(t)
	tr := newTestTree(t)
	if err := os.Symlink(tr.secret, tr.work+"/to-secret"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, tr.ro+"/prog", "#!/bin/sh\necho ran\n")
	tests := []struct {
		name, script string
		ok           bool
		want         string // in the output
	}{
		{"workspace read", "cat " + tr.work + "/a.txt", true, "workspace"},
		{"workspace write and remove", "echo new > " + tr.work + "/b && cat " + tr.work + "/b && rm " + tr.work + "/b", true, "new"},
		{"granted file read", "cat " + tr.granted, true, "granted"},
		{"system read", "head -c0 /etc/passwd && ls /usr/bin >/dev/null", true, ""},
		{"dev null", "echo x > /dev/null", true, ""},
		{"secret read", "cat " + tr.secret, false, "Permission denied"},
		{"secret through a link in the workspace", "cat " + tr.work + "/to-secret", false, "Permission denied"},
		{"granted file append", "echo x >> " + tr.granted, false, "Permission denied"},
		{"granted file truncate", "truncate -s 0 " + tr.granted, false, "Permission denied"},
		{"granted file delete", "rm -f " + tr.granted, false, "Permission denied"},
		{"granted file moved into the workspace", "mv " + tr.granted + " " + tr.work + "/stolen", false, "Permission denied"},
		{"new file next to the grant", "echo x > " + filepath.Dir(tr.granted) + "/new", false, "Permission denied"},
		{"list the grant's folder", "ls " + filepath.Dir(tr.granted), false, "Permission denied"},
		{"read-only root write", "echo x > " + tr.ro + "/data.txt", false, "Permission denied"},
		{"read-only root is not executable", tr.ro + "/prog", false, "Permission denied"},
		{"workspace hard link to the secret", "ln " + tr.secret + " " + tr.work + "/hl", false, ""},
		{"tmp outside the rules", "echo x > " + tr.root + "/tmp-file", false, "Permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := runHelper(t, helperJob{Rules: tr.rules()}, tt.script)
			if (code == 0) != tt.ok || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d, output %q; want ok=%v and output containing %q", code, out, tt.ok, tt.want)
			}
			if strings.Contains(out, "SECRET") {
				t.Errorf("the secret leaked: %q", out)
			}
		})
	}
	if data, err := os.ReadFile(tr.granted); err != nil || string(data) != "granted\n" {
		t.Errorf("granted file after the tests: %q, %v", data, err)
	}
}

// TestRulesBindToInodes: a file swapped in at a granted path after the
// ruleset was built is not covered by the grant's rule.
func TestRulesBindToInodes(t *testing.T) {
	requireLandlock(t)
	tr := newTestTree(t)
	job := helperJob{Rules: tr.rules(), SwapFrom: tr.root + "/secret/copy.txt", SwapTo: tr.granted}
	code, out := runHelper(t, job, "cat "+tr.granted)
	if code == 0 || strings.Contains(out, "SECRET") || !strings.Contains(out, "Permission denied") {
		t.Errorf("reading the swapped-in file: exit %d, output %q; want Permission denied", code, out)
	}
}

func TestNewRulesetSkips(t *testing.T) {
	requireLandlock(t)
	tr := newTestTree(t)
	if err := os.Symlink(tr.secret, tr.root+"/dl/link.txt"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tr.root+"/secret", tr.root+"/secret-dir-link"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		rule    rules.Rule
		applied bool
		access  rules.Access // when applied
	}{
		{"plain file", rules.Rule{Path: tr.granted, Access: rules.ReadFile, File: true}, true, rules.ReadFile},
		{"directory rights on a file are cut to file rights", rules.Rule{Path: tr.granted, Access: rules.ReadWrite}, true, rules.ReadWrite & rules.FileRights},
		{"symlink as the last component", rules.Rule{Path: tr.root + "/dl/link.txt", Access: rules.ReadFile, File: true}, false, 0},
		{"symlink on the way", rules.Rule{Path: tr.root + "/secret-dir-link/secret.txt", Access: rules.ReadFile, File: true}, false, 0},
		{"symlink followed for a system rule", rules.Rule{Path: tr.root + "/secret-dir-link", Access: rules.ReadOnly, Follow: true}, true, rules.ReadOnly},
		{"file rule on a directory", rules.Rule{Path: tr.work, Access: rules.ReadFile, File: true}, false, 0},
		{"missing path", rules.Rule{Path: tr.root + "/missing", Access: rules.ReadOnly}, false, 0},
		{"only directory rights on a file", rules.Rule{Path: tr.granted, Access: rules.ReadDir}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := NewRuleset([]rules.Rule{tt.rule})
			if err != nil {
				t.Fatal(err)
			}
			defer rs.Close()
			if got := len(rs.Applied) == 1; got != tt.applied {
				t.Fatalf("applied %v, skipped %v; want applied=%v", rs.Applied, rs.Skipped, tt.applied)
			}
			if tt.applied && rs.Applied[0].Access != tt.access {
				t.Errorf("access %v, want %v", rs.Applied[0].Access, tt.access)
			}
		})
	}
}

func TestExecAfterCloseFails(t *testing.T) {
	requireLandlock(t)
	rs, err := NewRuleset(nil)
	if err != nil {
		t.Fatal(err)
	}
	rs.Close()
	// enforce, not Exec: a failed Exec leaves the test's thread locked.
	if err := rs.enforce(0, nil); err == nil {
		t.Fatal("enforce on a closed ruleset succeeded")
	}
}

// systemRules are what any test command needs to run: the system trees,
// configuration and /proc, and the common devices.
func systemRules() []rules.Rule {
	var out []rules.Rule
	for _, p := range []string{"/usr", "/bin", "/sbin", "/lib", "/lib64"} {
		out = append(out, rules.Rule{Path: p, Access: rules.ReadExec, Follow: true, Why: "system"})
	}
	for _, p := range []string{"/etc", "/proc"} {
		out = append(out, rules.Rule{Path: p, Access: rules.ReadOnly, Follow: true, Why: "system"})
	}
	for _, p := range []string{"/dev/null", "/dev/zero", "/dev/urandom", "/dev/tty"} {
		out = append(out, rules.Rule{Path: p, Access: rules.DeviceRW, Follow: true, File: true, Why: "device"})
	}
	return out
}
