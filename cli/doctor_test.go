package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"pathgrant/daemon"
	"pathgrant/hooks/clientconfig"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
	"pathgrant/sandbox"
	"pathgrant/wire"
)

// doctorFixture is a machine for doctor to look at: a temporary home, a
// stand-in pathgrant binary with this build's pathgrant-hook next to it,
// a socket and a store path, a claude command on PATH, and the folder
// doctor runs in, a git repository's root.
type doctorFixture struct {
	root, home, bin, hook, sock, store, work string
	vars                                     map[string]string
	path                                     map[string]string // command -> where LookPath finds it
}

func newDoctorFixture(t *testing.T) *doctorFixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &doctorFixture{root: root, home: root + "/home", bin: root + "/bin/pathgrant", hook: root + "/bin/pathgrant-hook",
		sock: root + "/run/pathgrant.sock", store: root + "/state/pathgrant.db", work: root + "/work"}
	for _, d := range []string{f.home, root + "/bin", root + "/run", f.work + "/.git"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, exe := range []string{f.bin, f.hook, root + "/bin/" + sandbox.ConfineName, root + "/bin/claude"} {
		if err := os.WriteFile(exe, []byte("#!/bin/sh\nexit 2\n"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	f.vars = map[string]string{"HOME": f.home}
	f.path = map[string]string{"claude": root + "/bin/claude", "bwrap": "/usr/bin/bwrap"}
	// install-hooks reads the process environment.
	t.Setenv("HOME", f.home)
	for _, v := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "PI_CODING_AGENT_DIR", "XDG_CONFIG_HOME"} {
		t.Setenv(v, "")
	}
	return f
}

// env is a healthy machine's probes: Landlock, bubblewrap, user
// namespaces and both desktop services present. The daemon, the store
// and the files are the real ones at the fixture's paths.
func (f *doctorFixture) env() doctorEnv {
	env := systemDoctorEnv()
	env.Getenv = func(k string) string { return f.vars[k] }
	env.Version = func() string { return "v0.0.0-test" }
	env.Executable = func() (string, error) { return f.bin, nil }
	env.Getwd = func() (string, error) { return f.work, nil }
	env.LookPath = func(file string) (string, error) {
		if p, ok := f.path[file]; ok {
			return p, nil
		}
		return "", &exec.Error{Name: file, Err: exec.ErrNotFound}
	}
	env.Confinement = func() sandbox.Confinement {
		return sandbox.Assess(sandbox.Facts{LandlockABI: 6, Bwrap: "/usr/bin/bwrap", UserNS: true})
	}
	env.BusName = func(string) (bool, error) { return true, nil }
	return env
}

// serve runs a real daemon on the fixture's socket and store.
func (f *doctorFixture) serve(t *testing.T) {
	t.Helper()
	store := ipctest.OpenStore(t, f.store)
	ipctest.Serve(t, ipc.New(ipc.Config{HooksBelow: true, Store: store, Home: f.home, Logger: ipctest.Quiet}), f.sock)
}

// installHooks registers the hook for client with the real install-hooks,
// given any further arguments (--project DIR).
func (f *doctorFixture) installHooks(t *testing.T, client, hook string, more ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := runInstallHooks(append([]string{client, "--hook", hook}, more...), &stdout, &stderr); code != 0 {
		t.Fatalf("install-hooks %s: exit %d: %s", client, code, stderr.String())
	}
}

// doctorLine is what a test expects of one line of the report.
type doctorLine struct {
	status string
	has    []string // in the detail or the fix
}

func TestDoctor(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, f *doctorFixture, env *doctorEnv)
		code  int
		want  map[string]doctorLine
	}{
		{"healthy", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			f.serve(t)
			f.installHooks(t, "claude", f.hook)
		}, 0, map[string]doctorLine{
			"daemon":            {doctorOK, []string{"running on"}},
			"store":             {doctorOK, []string{"bytes", "the daemon holds the store"}},
			"landlock":          {doctorOK, []string{"ABI 6"}},
			"confinement":       {doctorOK, []string{"bwrap+landlock", "run confined"}},
			"claude":            {doctorOK, []string{"installed"}},
			"claude hooks":      {doctorOK, []string{"installed in", "settings.json", "pathgrant-hook claude"}},
			"claude mcp":        {doctorInfo, []string{"no pathgrant server in", ".claude.json"}},
			"codex hooks":       {doctorInfo, []string{"not installed"}},
			"pathgrant-confine": {doctorOK, []string{"/bin/pathgrant-confine", "starts each confined command"}},
			"held opens":        {doctorOK, []string{"on: a confined command that opens a file under", "/Downloads", "is paused until you decide", "never their contents"}},
			"who can approve":   {doctorOK, []string{"confined (bwrap+landlock)", "only you, with the request's one-time code", "mount view hides pathgrant's socket", "PID namespace"}},
		}},
		{"a check after a command did not finish", func(t *testing.T, f *doctorFixture, env *doctorEnv) {
			f.serve(t)
			real := env.Health
			env.Health = func(ctx context.Context, socket string) (wire.Health, error) {
				h, err := real(ctx, socket)
				h.FailedChecks = 2
				return h, err
			}
		}, 1, map[string]doctorLine{
			"daemon":           {doctorOK, []string{"running on"}},
			"after-run checks": {doctorFail, []string{"2 checks of what", "next command is refused", "audit log (kind after-run)"}},
		}},
		{"Landlock only: no bubblewrap on PATH", func(t *testing.T, f *doctorFixture, env *doctorEnv) {
			f.serve(t)
			f.installHooks(t, "claude", f.hook)
			env.Confinement = func() sandbox.Confinement { return sandbox.Assess(sandbox.Facts{LandlockABI: 6}) }
		}, 0, map[string]doctorLine{
			"bubblewrap":      {doctorWarn, []string{"not on PATH", "apt-get install bubblewrap"}},
			"confinement":     {doctorOK, []string{"landlock", "run confined"}},
			"who can approve": {doctorOK, []string{"confined by Landlock only", "only you, with the request's one-time code", "can make no Unix socket", "no other process's /proc", "process group", "can never approve"}},
		}},
		{"Landlock only: no user namespaces", func(t *testing.T, f *doctorFixture, env *doctorEnv) {
			f.serve(t)
			f.installHooks(t, "claude", f.hook)
			env.Confinement = func() sandbox.Confinement {
				return sandbox.Assess(sandbox.Facts{LandlockABI: 6, Bwrap: "/usr/bin/bwrap"})
			}
		}, 0, map[string]doctorLine{
			"user namespaces": {doctorWarn, []string{"are off"}},
			"who can approve": {doctorOK, []string{"confined by Landlock only", "can make no Unix socket"}},
		}},
		{"macOS: Seatbelt confines", func(t *testing.T, f *doctorFixture, env *doctorEnv) {
			f.serve(t)
			f.installHooks(t, "claude", f.hook)
			env.GOOS = "darwin"
			env.Confinement = func() sandbox.Confinement {
				return sandbox.Assess(sandbox.Facts{LandlockErr: errors.New("no Landlock on darwin"), SandboxExec: "/usr/bin/sandbox-exec"})
			}
		}, 0, map[string]doctorLine{
			"seatbelt":           {doctorOK, []string{"/usr/bin/sandbox-exec", "profile made from its session's policy"}},
			"confinement":        {doctorOK, []string{"seatbelt", "run confined"}},
			"held opens":         {doctorInfo, []string{"off: ", "fails at once"}},
			"detached processes": {doctorInfo, []string{"no child subreaper", "keeps them from pathgrant's socket"}},
			"who can approve":    {doctorOK, []string{"confined (seatbelt)", "only you, with the request's one-time code", "from pathgrant's socket"}},
		}},
		{"macOS: no sandbox-exec", func(t *testing.T, f *doctorFixture, env *doctorEnv) {
			env.GOOS = "darwin"
			env.Confinement = func() sandbox.Confinement {
				return sandbox.Assess(sandbox.Facts{LandlockErr: errors.New("no Landlock on darwin")})
			}
		}, 1, map[string]doctorLine{
			"seatbelt":           {doctorFail, []string{"sandbox-exec is missing", "reinstall or repair macOS"}},
			"confinement":        {doctorFail, []string{"UNCONFINED", "sandbox-exec is unavailable", "see seatbelt above"}},
			"detached processes": {doctorWarn, []string{"no child subreaper", "approval code is the only barrier", "keep confinement on"}},
		}},
		{"held opens: neither FUSE nor the kernel", func(t *testing.T, f *doctorFixture, env *doctorEnv) {
			env.Confinement = func() sandbox.Confinement {
				return sandbox.Assess(sandbox.Facts{LandlockABI: 6, Bwrap: "/usr/bin/bwrap", UserNS: true, HeldFSErr: errors.New("no fusermount3 (Debian's fuse3 package)"),
					HoldErr: errors.New("Linux 5.10: handing a descriptor to a held call needs 5.14 or later")})
			}
		}, 1, map[string]doctorLine{
			"held opens": {doctorInfo, []string{"off: no fusermount3", "Linux 5.10", "fails at once", "runs the command again", "apt-get install fuse3"}},
		}},
		{"held opens: served by pathgrant's file system", func(t *testing.T, f *doctorFixture, env *doctorEnv) {
			read := env.ReadFile
			env.ReadFile = func(name string) ([]byte, error) {
				if name != "/proc/self/mountinfo" {
					return read(name)
				}
				dir := strings.ReplaceAll(daemon.HeldDir(f.sock), " ", `\040`)
				return []byte("36 25 0:32 / /proc rw - proc proc rw\n90 30 0:55 / " + dir + " ro,nosuid,nodev,noexec - fuse.pathgrant pathgrant ro\n"), nil
			}
		}, 1, map[string]doctorLine{
			"held opens": {doctorOK, []string{"is paused until you decide", "served by pathgrant's file system (FUSE): only opens under those folders wait"}},
		}},
		{"held opens: the seccomp fallback where /dev/fuse is closed", func(t *testing.T, f *doctorFixture, env *doctorEnv) {
			env.Confinement = func() sandbox.Confinement {
				return sandbox.Assess(sandbox.Facts{LandlockABI: 6, Bwrap: "/usr/bin/bwrap", UserNS: true,
					HeldFSErr: errors.New("/dev/fuse (mode 0600) does not open for you: permission denied")})
			}
		}, 1, map[string]doctorLine{
			"held opens": {doctorInfo, []string{"held by the seccomp supervisor, the fallback", "/dev/fuse (mode 0600)", "sudo chmod 0666 /dev/fuse"}},
		}},
		{"held opens: off in the device policy", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			writePolicy(t, f.home+"/.config/pathgrant/policy.toml", "hold_opens = false\n")
		}, 1, map[string]doctorLine{
			"held opens": {doctorInfo, []string{"off in the device policy (hold_opens = false)", "set hold_opens = true in HOME/.config/pathgrant/policy.toml"}},
		}},
		{"broken: daemon down, hooks missing, no Landlock", func(_ *testing.T, _ *doctorFixture, env *doctorEnv) {
			env.Confinement = func() sandbox.Confinement {
				return sandbox.Assess(sandbox.Facts{LandlockErr: syscall.ENOSYS, Bwrap: "/usr/bin/bwrap", UserNS: true})
			}
		}, 1, map[string]doctorLine{
			"daemon":          {doctorFail, []string{"not running", "start it: pathgrant"}},
			"store":           {doctorOK, []string{"not created yet"}},
			"landlock":        {doctorFail, []string{"unavailable", "function not implemented", "Linux 6.10"}},
			"confinement":     {doctorFail, []string{"unconfined", "Landlock is unavailable"}},
			"claude hooks":    {doctorFail, []string{"not installed in", "run: pathgrant install-hooks claude"}},
			"held opens":      {doctorInfo, []string{"off: commands are not confined"}},
			"who can approve": {doctorInfo, []string{"code-only", "the only barrier"}},
		}},
		{"hook of another build", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			f.serve(t)
			old := f.root + "/old/pathgrant-hook"
			if err := os.MkdirAll(filepath.Dir(old), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(old, []byte("#!/bin/sh\n"), 0o700); err != nil {
				t.Fatal(err)
			}
			f.installHooks(t, "claude", old)
		}, 1, map[string]doctorLine{
			"claude hooks": {doctorFail, []string{"old/pathgrant-hook, not this build's", "run: pathgrant install-hooks claude"}},
		}},
		{"hook and front end moved away", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			f.serve(t)
			f.installHooks(t, "claude", f.hook)
			if err := os.Remove(f.hook); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(f.root + "/bin/" + sandbox.ConfineName); err != nil {
				t.Fatal(err)
			}
		}, 1, map[string]doctorLine{
			"pathgrant-confine": {doctorWarn, []string{"not found", "whole pathgrant binary", "/bin/ ./cmd/pathgrant-confine"}},
			"pathgrant-hook":    {doctorFail, []string{"not found", "go build"}},
			"claude hooks":      {doctorFail, []string{"does not exist", "run: pathgrant install-hooks claude"}},
		}},
		{"store checked when no daemon holds it", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			ipctest.OpenStore(t, f.store).Close()
			f.installHooks(t, "claude", f.hook)
		}, 1, map[string]doctorLine{
			"daemon": {doctorFail, []string{"not running"}},
			"store":  {doctorOK, []string{"integrity checked"}},
		}},
		{"corrupt store", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			if err := os.MkdirAll(filepath.Dir(f.store), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.store, bytes.Repeat([]byte("x"), 8192), 0o600); err != nil {
				t.Fatal(err)
			}
		}, 1, map[string]doctorLine{
			"store": {doctorFail, []string{"corrupt", "mv " + "STORE" + " STORE.corrupt"}},
		}},
		{"no desktop services, confinement off", func(t *testing.T, f *doctorFixture, env *doctorEnv) {
			f.serve(t)
			f.installHooks(t, "claude", f.hook)
			env.BusName = func(string) (bool, error) { return false, nil }
			env.Confinement = func() sandbox.Confinement {
				return sandbox.Assess(sandbox.Facts{LandlockABI: 6, Bwrap: "/usr/bin/bwrap"})
			}
			writePolicy(t, f.home+"/.config/pathgrant/policy.toml", "confinement = false\nallow_protected = [\".vscode\"]\n")
		}, 0, map[string]doctorLine{
			"protected set":   {doctorWarn, []string{"opened by allow_protected: .vscode", "remove what you do not need"}},
			"notifications":   {doctorWarn, []string{"org.freedesktop.Notifications", "pathgrant pending"}},
			"tray":            {doctorWarn, []string{"org.kde.StatusNotifierWatcher", "pathgrant settings"}},
			"user namespaces": {doctorWarn, []string{"are off", "sysctl"}},
			"confinement":     {doctorWarn, []string{"off in the device policy", "set confinement = true in " + "HOME/.config/pathgrant/policy.toml"}},
			"who can approve": {doctorInfo, []string{"code-only", "the only barrier"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newDoctorFixture(t)
			env := f.env()
			tt.setup(t, f, &env)
			f.check(t, env, tt.code, tt.want)
		})
	}
}

func writePolicy(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// parseDoctorTable splits the report into name -> [status, rest], and
// checks that the status column is aligned.
func parseDoctorTable(t *testing.T, out string) map[string][2]string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	statusCol := -1
	got := map[string][2]string{}
	for _, l := range lines {
		fields := strings.SplitN(l, "  ", 2)
		if len(fields) != 2 {
			t.Fatalf("line %q is not `name  status  detail`", l)
		}
		rest := strings.TrimLeft(fields[1], " ")
		col := len(l) - len(rest)
		if statusCol >= 0 && col != statusCol {
			t.Errorf("status column at %d in %q, want %d", col, l, statusCol)
		}
		statusCol = col
		status, detail, _ := strings.Cut(rest, " ")
		got[fields[0]] = [2]string{status, strings.TrimLeft(detail, " ")}
	}
	return got
}

// check runs doctor on env against the fixture's socket and store, and
// wants exit code, nothing on stderr, and each named line as given.
func (f *doctorFixture) check(t *testing.T, env doctorEnv, code int, want map[string]doctorLine) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	got := runDoctorWith([]string{"--socket", f.sock, "--store", f.store}, &stdout, &stderr, env)
	if got != code || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want %d, nothing; report:\n%s", got, stderr.String(), code, stdout.String())
	}
	lines := parseDoctorTable(t, stdout.String())
	for name, w := range want {
		checkDoctorLine(t, f, lines, name, w)
	}
}

func checkDoctorLine(t *testing.T, f *doctorFixture, lines map[string][2]string, name string, want doctorLine) {
	t.Helper()
	got, ok := lines[name]
	if !ok {
		t.Errorf("no line %q", name)
		return
	}
	if got[0] != want.status {
		t.Errorf("%s: status %q, want %q (%s)", name, got[0], want.status, got[1])
	}
	for _, s := range want.has {
		s = strings.NewReplacer("STORE", f.store, "HOME", f.home, "ROOT", f.root).Replace(s)
		if !strings.Contains(got[1], s) {
			t.Errorf("%s: %q lacks %q", name, got[1], s)
		}
	}
}

// TestDoctorJSON: --json prints one object naming every check, with the
// fix of each problem, and the same exit status.
func TestDoctorJSON(t *testing.T) {
	f := newDoctorFixture(t)
	var stdout, stderr bytes.Buffer
	code := runDoctorWith([]string{"--json", "--socket", f.sock, "--store", f.store}, &stdout, &stderr, f.env())
	var rep doctorReport
	dec := json.NewDecoder(&stdout)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("output is not one report object: %v", err)
	}
	if code != 1 || rep.OK || rep.Version != "v0.0.0-test" {
		t.Errorf("exit %d, ok %v, version %q; want 1, false, the build's", code, rep.OK, rep.Version)
	}
	fixes := map[string]string{}
	for _, c := range rep.Checks {
		fixes[c.Name+" "+c.Status] = c.Fix
	}
	for _, want := range []struct{ check, fix string }{
		{"daemon fail", "start it"},
		{"claude hooks fail", "pathgrant install-hooks claude"},
	} {
		if fix, ok := fixes[want.check]; !ok || !strings.Contains(fix, want.fix) {
			t.Errorf("check %q: fix %q (present %v), want it to say %q", want.check, fix, ok, want.fix)
		}
	}
}

func TestDoctorUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"argument", []string{"now"}, 2, "", "unexpected argument"},
		{"unknown flag", []string{"--fix"}, 2, "", "flag provided but not defined"},
		{"help", []string{"--help"}, 0, doctorUsageText, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runDoctorWith(tt.args, &stdout, &stderr, doctorEnv{})
			if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) ||
				strings.Count(stderr.String(), "\n") > 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

// TestDoctorCodex: with pathgrant's hook in Codex's hooks.json, doctor
// says whether Codex would run it: the hooks feature on in config.toml and
// not forced off by the administrator's requirements, and a trust entry
// with the hook's current hash for every pathgrant hook.
// TestDoctorHooksSwitch: a client whose user settings switch every hook
// off is a failure naming the file and the fix; the same settings with
// the switch off, or none, are fine. (Only the line is checked: the exit
// status also depends on which clients this machine has.)
func TestDoctorHooksSwitch(t *testing.T) {
	tests := []struct {
		client, settings string
		want             doctorLine
	}{
		{"claude", `{"disableAllHooks": true}`, doctorLine{doctorFail, []string{`sets "disableAllHooks": true: Claude Code runs no hook`, `remove "disableAllHooks"`}}},
		{"qwen", `{"disableAllHooks": true, "model": {"name": "q"}}`, doctorLine{doctorFail, []string{"Qwen Code runs no hook, pathgrant's included"}}},
		{"copilot", `{"disableAllHooks": false}`, doctorLine{doctorOK, []string{"hooks not switched off in HOME/.copilot/settings.json"}}},
		{"qwen", ``, doctorLine{doctorOK, []string{"no settings switch hooks off"}}},
		{"droid", `{"hooks": {"hooksDisabled": true}}`, doctorLine{doctorFail, []string{`HOME/.factory/settings.json sets "hooks.hooksDisabled": true: Factory Droid runs no hook`}}},
	}
	for _, tt := range tests {
		t.Run(tt.client+"/"+tt.settings, func(t *testing.T) {
			f := newDoctorFixture(t)
			env := f.env()
			f.serve(t)
			if tt.settings != "" {
				c, err := clientconfig.LookupClient(tt.client)
				if err != nil {
					t.Fatal(err)
				}
				writePolicy(t, filepath.Join(c.Dir(func(string) string { return "" }, f.home), "settings.json"), tt.settings)
			}
			var stdout, stderr bytes.Buffer
			runDoctorWith([]string{"--socket", f.sock, "--store", f.store}, &stdout, &stderr, env)
			checkDoctorLine(t, f, parseDoctorTable(t, stdout.String()), tt.client+" hooks switch", tt.want)
		})
	}
}

func TestDoctorCodex(t *testing.T) {
	appendFile := func(t *testing.T, path, text string) {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		writePolicy(t, path, string(data)+text)
	}
	requirements := func(text string) func(t *testing.T, f *doctorFixture, env *doctorEnv) {
		return func(t *testing.T, f *doctorFixture, env *doctorEnv) {
			read := env.ReadFile
			env.ReadFile = func(name string) ([]byte, error) {
				if name == codexRequirements {
					return []byte(text), nil
				}
				return read(name)
			}
		}
	}
	cfg := "HOME/.codex/config.toml"
	tests := []struct {
		name  string
		setup func(t *testing.T, f *doctorFixture, env *doctorEnv)
		code  int
		want  map[string]doctorLine
	}{
		{"installed: on and trusted", nil, 0, map[string]doctorLine{
			"codex hooks feature": {doctorOK, []string{"on"}},
			"codex hook trust":    {doctorOK, []string{"3 pathgrant hooks trusted in " + cfg}},
		}},
		{"hooks = false in config.toml", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			appendFile(t, f.home+"/.codex/config.toml", "\n[features]\nhooks = false\n")
		}, 1, map[string]doctorLine{
			"codex hooks feature": {doctorFail, []string{cfg + " sets [features] hooks = false", "run: pathgrant install-hooks codex"}},
			"codex hook trust":    {doctorOK, nil},
		}},
		{"codex_hooks = false in config.toml", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			appendFile(t, f.home+"/.codex/config.toml", "\n[features]\ncodex_hooks = false\n")
		}, 1, map[string]doctorLine{
			"codex hooks feature": {doctorFail, []string{"[features] codex_hooks = false", "set it to true in " + cfg}},
		}},
		{"requirements force hooks off", requirements("[features]\nhooks = false\n"), 1, map[string]doctorLine{
			"codex hooks feature": {doctorFail, []string{codexRequirements + " sets [features] hooks = false", "ask your administrator"}},
		}},
		{"requirements allow managed hooks only", requirements("allow_managed_hooks_only = true\n"), 1, map[string]doctorLine{
			"codex hooks feature": {doctorFail, []string{"allow_managed_hooks_only = true", "managed hooks"}},
		}},
		{"trust entries missing", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			writePolicy(t, f.home+"/.codex/config.toml", "model = \"gpt-5\"\n")
		}, 1, map[string]doctorLine{
			"codex hooks feature": {doctorOK, nil},
			"codex hook trust":    {doctorFail, []string{"no trust entry for", "hooks.json:permission_request:0:0", "it writes the trust entries into " + cfg}},
		}},
		{"trusted hash stale", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			path := f.home + "/.codex/config.toml"
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			stale := regexp.MustCompile(`trusted_hash = "sha256:[0-9a-f]+"`).ReplaceAllString(string(data), `trusted_hash = "sha256:00"`)
			writePolicy(t, path, stale)
		}, 1, map[string]doctorLine{
			"codex hook trust": {doctorFail, []string{"with sha256:00, but the hook as installed hashes to sha256:", "run: pathgrant install-hooks codex"}},
		}},
		{"config.toml unreadable as TOML", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			appendFile(t, f.home+"/.codex/config.toml", "\n[features\n")
		}, 1, map[string]doctorLine{
			"codex config": {doctorFail, []string{"is not valid TOML", "correct " + cfg}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newDoctorFixture(t)
			env := f.env()
			f.serve(t)
			f.installHooks(t, "claude", f.hook)
			f.installHooks(t, "codex", f.hook)
			if tt.setup != nil {
				tt.setup(t, f, &env)
			}
			f.check(t, env, tt.code, tt.want)
		})
	}
}
