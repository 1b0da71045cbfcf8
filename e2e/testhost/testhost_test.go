//go:build linux

package testhost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// toolTimeout bounds each tool run: every fixture is a few kilobytes on a
// local link, so a tool that takes longer is stuck, not slow.
const toolTimeout = 30 * time.Second

// toolRow is one real tool run against the host from the machine's own
// namespace, straight over the veth.
type toolRow struct {
	name     string
	bins     []string // what must be on PATH; the row skips naming the missing one
	args     func(h *Host, work string) []string
	env      func(h *Host) []string // added after the host's ToolEnv
	wantExit int
	check    func(t *testing.T, h *Host, work string, out []byte)
}

// toolRows are the tools a confined command will run through the proxy.
func toolRows() []toolRow {
	return []toolRow{
		{name: "curl", bins: []string{"curl"},
			args:  func(h *Host, _ string) []string { return []string{"curl", "-fsS", h.URL("/hello")} },
			check: wantOutput("hello from the test host\n")},
		{name: "curl plain HTTP", bins: []string{"curl"},
			args: func(h *Host, _ string) []string {
				return []string{"curl", "-fsS", "http://" + h.Addr.String() + "/hello"}
			},
			check: wantOutput("hello from the test host\n")},
		{name: "curl by DNS name", bins: []string{"curl"},
			args: func(h *Host, _ string) []string {
				return []string{"curl", "-fsS", "--resolve", hostName + ":443:" + h.Addr.String(), "https://" + hostName + "/hello"}
			},
			check: wantOutput("hello from the test host\n")},
		{name: "curl big", bins: []string{"curl"},
			args: func(h *Host, _ string) []string {
				return []string{"curl", "-fsS", "-o", "/dev/null", "-w", "%{size_download}", h.URL("/big/10485760")}
			},
			check: wantOutput("10485760")},
		{name: "wget", bins: []string{"wget"},
			args:  func(h *Host, _ string) []string { return []string{"wget", "-qO-", h.URL("/hello")} },
			check: wantOutput("hello from the test host\n")},
		{name: "git clone https", bins: []string{"git"},
			args:  func(h *Host, _ string) []string { return []string{"git", "clone", h.URL("/git/" + repoName), "clone"} },
			check: wantFile("clone/README", readme)},
		{name: "git clone ssh", bins: []string{"git", "ssh"},
			args:  func(h *Host, _ string) []string { return []string{"git", "clone", h.GitSSH(), "clone"} },
			env:   gitSSHCommand,
			check: wantFile("clone/README", readme)},
		{name: "ssh refuses a shell command", bins: []string{"ssh"},
			args: func(h *Host, _ string) []string {
				return append(append([]string{"ssh", "-F", os.DevNull}, strings.Fields(h.SSHOptions())...), "git@"+h.Addr.String(), "echo", "hi")
			},
			wantExit: 255,
			check:    wantOutputContains("exec request failed")},
		{name: "npm install", bins: []string{"npm", "node"},
			args: func(_ *Host, _ string) []string {
				return []string{"npm", "install", npmName, "--no-audit", "--no-fund", "--prefer-online"}
			},
			check: wantFileContains("node_modules/"+npmName+"/package.json", `"version": "`+npmVersion+`"`)},
		{name: "pip download", bins: []string{"pip3"},
			args: func(_ *Host, _ string) []string {
				return []string{"pip3", "download", pypiProject + "==" + pypiVersion, "--no-deps", "-d", "dl"}
			},
			check: wantFileContains("dl/"+pypiWheelName, "")},
		{name: "pip install", bins: []string{"pip3"},
			args: func(_ *Host, _ string) []string {
				return []string{"pip3", "install", "--no-deps", "--target", "site", pypiProject + "==" + pypiVersion}
			},
			check: wantFileContains("site/"+pypiDist+"/__init__.py", "hello from "+pypiProject)},
		{name: "go mod download", bins: []string{"go"},
			args: func(_ *Host, _ string) []string {
				return []string{"go", "mod", "download", "-json", goModule + "@" + goVersion}
			},
			check: checkGoDownload},
		{name: "unreachable from another namespace", bins: []string{"unshare", "curl"},
			args: func(h *Host, _ string) []string {
				return []string{"unshare", "-n", "curl", "-sS", "--max-time", "5", h.URL("/hello")}
			},
			wantExit: 7, // curl's "failed to connect": the fresh namespace has no route to the host
			check:    wantOutputContains("Failed to connect")},
	}
}

// TestTools runs each real tool against one host.
func TestTools(t *testing.T) {
	if testing.Short() {
		t.Skip("the real tools run in the full test step, not with -short")
	}
	h := Start(t)
	for _, row := range toolRows() {
		t.Run(row.name, func(t *testing.T) { runTool(t, h, row) })
	}
}

// runTool runs one row in a fresh work folder with a fresh HOME and only
// the environment the test gives: no setting of the machine's person
// reaches the tool.
func runTool(t *testing.T, h *Host, row toolRow) {
	for _, bin := range row.bins {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed: %v", bin, err)
		}
	}
	home, work := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	args := row.args(h, work)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = work
	cmd.Env = append(isolatedEnv(home), h.ToolEnv(home)...)
	if row.env != nil {
		cmd.Env = append(cmd.Env, row.env(h)...)
	}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish in %v: %s", strings.Join(args, " "), toolTimeout, out)
	}
	if code := exitCode(err); code != row.wantExit {
		t.Fatalf("%s: exit %d (%v), want %d:\n%s", strings.Join(args, " "), code, err, row.wantExit, out)
	}
	row.check(t, h, work, out)
}

// isolatedEnv is the base every tool gets: PATH, a HOME of its own and the
// switches that keep system-wide configuration out.
func isolatedEnv(home string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"LANG=C.UTF-8",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"PIP_CONFIG_FILE=" + os.DevNull,
		"npm_config_globalconfig=" + os.DevNull,
	}
}

// gitSSHCommand is what pathgrant will set: ssh with the host's options
// (and no ssh config file, which ssh reads from the account's home, not
// HOME).
func gitSSHCommand(h *Host) []string {
	return []string{"GIT_SSH_COMMAND=ssh -F " + os.DevNull + " " + h.SSHOptions()}
}

// exitCode is a finished command's exit status, -1 when it did not run.
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	default:
		return -1
	}
}

// wantOutput checks the tool's whole output.
func wantOutput(want string) func(*testing.T, *Host, string, []byte) {
	return func(t *testing.T, _ *Host, _ string, out []byte) {
		if string(out) != want {
			t.Errorf("output %q, want %q", out, want)
		}
	}
}

// wantOutputContains checks that the output says why the tool failed.
func wantOutputContains(want string) func(*testing.T, *Host, string, []byte) {
	return func(t *testing.T, _ *Host, _ string, out []byte) {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output %q does not say %q", out, want)
		}
	}
}

// wantFile checks a file the tool wrote under its work folder.
func wantFile(rel, want string) func(*testing.T, *Host, string, []byte) {
	return func(t *testing.T, _ *Host, work string, out []byte) {
		got, err := os.ReadFile(filepath.Join(work, rel))
		if err != nil {
			t.Fatalf("%v; the tool said:\n%s", err, out)
		}
		if string(got) != want {
			t.Errorf("%s is %q, want %q", rel, got, want)
		}
	}
}

// wantFileContains checks a file the tool wrote holds want.
func wantFileContains(rel, want string) func(*testing.T, *Host, string, []byte) {
	return func(t *testing.T, _ *Host, work string, out []byte) {
		got, err := os.ReadFile(filepath.Join(work, rel))
		if err != nil {
			t.Fatalf("%v; the tool said:\n%s", err, out)
		}
		if len(got) == 0 || !bytes.Contains(got, []byte(want)) {
			t.Errorf("%s is %q, want it to hold %q", rel, got, want)
		}
	}
}

// checkGoDownload reads go's JSON report and the module it unpacked.
func checkGoDownload(t *testing.T, _ *Host, _ string, out []byte) {
	var m struct{ Error, Zip, Dir string }
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("go mod download -json: %v:\n%s", err, out)
	}
	if m.Error != "" {
		t.Fatalf("go mod download: %s", m.Error)
	}
	if _, err := os.Stat(m.Zip); err != nil {
		t.Errorf("the module zip: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(m.Dir, "mod.go"))
	if err != nil {
		t.Fatal(err)
	}
	if string(src) != goSource {
		t.Errorf("mod.go is %q, want %q", src, goSource)
	}
}

// TestStartAndCleanup: a host's addresses and files are what it says, and
// when its test ends neither its namespace nor its veth is left.
func TestStartAndCleanup(t *testing.T) {
	var h *Host
	t.Run("start", func(t *testing.T) {
		h = Start(t)
		checkShape(t, h)
	})
	if h == nil {
		t.Skip("no host was started")
	}
	if out, err := exec.Command("ip", "netns", "list").CombinedOutput(); err != nil {
		t.Fatalf("ip netns list: %v: %s", err, out)
	} else if strings.Contains(string(out), h.Namespace) {
		t.Errorf("namespace %s is left:\n%s", h.Namespace, out)
	}
	if out, err := exec.Command("ip", "link", "show", h.link).CombinedOutput(); err == nil {
		t.Errorf("veth %s is left:\n%s", h.link, out)
	}
}

// checkShape checks the host's addresses and the files it hands out.
func checkShape(t *testing.T, h *Host) {
	if h.Range.Bits() != 30 || !h.Range.Contains(h.Addr) || !h.Range.Contains(h.Gateway) ||
		h.Gateway != h.Range.Addr().Next() || h.Addr != h.Gateway.Next() {
		t.Errorf("addresses %v, gateway %v, range %v do not fit a /30", h.Addr, h.Gateway, h.Range)
	}
	if b := h.Addr.As4(); b[0] != 10 || b[1] != 231 {
		t.Errorf("address %v is not in 10.231.0.0/16", h.Addr)
	}
	for file, mode := range map[string]os.FileMode{h.CAFile: 0o644, h.KnownHosts: 0o644, h.ClientKey: 0o600} {
		if fi, err := os.Stat(file); err != nil {
			t.Error(err)
		} else if fi.Mode().Perm() != mode {
			t.Errorf("%s has mode %v, want %v", file, fi.Mode().Perm(), mode)
		}
	}
	if kh, err := os.ReadFile(h.KnownHosts); err != nil || !strings.HasPrefix(string(kh), h.Addr.String()+" ssh-ed25519 ") {
		t.Errorf("known_hosts %q (%v) does not name %v", kh, err, h.Addr)
	}
}

// TestIsUploadPack: the exec requests git sends are accepted, and nothing
// else.
func TestIsUploadPack(t *testing.T) {
	for cmd, want := range map[string]bool{
		"git-upload-pack '/repo.git'":  true,
		"git-upload-pack 'repo.git'":   true,
		"git-upload-pack '/repo.git/'": true,
		`git-upload-pack "/repo.git"`:  true,
		"git upload-pack '/repo.git'":  true,
		"git-upload-pack /repo.git":    true,
		"git-receive-pack '/repo.git'": false,
		"git-upload-pack '/other.git'": false,
		"git-upload-pack '/repo.git';": false,
		"sh -c 'git-upload-pack x'":    false,
		"":                             false,
	} {
		payload := ssh.Marshal(struct{ Command string }{cmd})
		if got := isUploadPack(payload); got != want {
			t.Errorf("isUploadPack(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestSweepLeftovers: a namespace whose owner is gone (its claim
// unlocked) is deleted by the next sweep, and a live host's is left alone.
func TestSweepLeftovers(t *testing.T) {
	if why := cannotMakeNamespace(); why != "" {
		t.Skip(why)
	}
	var names [2]string
	for i := range names {
		suffix, err := randomHex(4)
		if err != nil {
			t.Fatal(err)
		}
		names[i] = "pgt-" + suffix
		t.Cleanup(func() {
			if _, err := os.Stat(filepath.Join(netnsDir, names[i])); err == nil {
				logFailure(t, ip("netns", "delete", names[i]))
			}
		})
		if err := ip("netns", "add", names[i]); err != nil {
			t.Fatal(err)
		}
	}
	dead, live := names[0], names[1]
	owner, err := claim(live)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFailure(t, release(live, owner)) })
	deadClaim := filepath.Join(ownerDir, dead)
	t.Cleanup(func() { os.Remove(deadClaim) })
	if err := os.WriteFile(deadClaim, nil, 0o600); err != nil { // nobody holds its lock
		t.Fatal(err)
	}
	if err := sweepLeftovers(); err != nil {
		t.Fatal(err)
	}
	for name, wantLeft := range map[string]bool{dead: false, live: true} {
		_, err := os.Stat(filepath.Join(netnsDir, name))
		if left := err == nil; left != wantLeft {
			t.Errorf("namespace %s left: %v, want %v", name, left, wantLeft)
		}
	}
	if _, err := os.Stat(deadClaim); err == nil {
		t.Errorf("the dead host's claim %s is left", deadClaim)
	}
}
