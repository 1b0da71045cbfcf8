package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pathgrant/devicepolicy"
	"pathgrant/guard"
	"pathgrant/sandbox/rules"
	"pathgrant/wire"
)

// launchEnv is a workspace holding the daemon's and the command's
// pathgrant folders, and a pathgrant-confine binary.
type launchEnv struct {
	root, work, exe string
	l               Launcher
	pol             wire.Policy
	req             wire.ExecRequest
}

func newLaunchEnv(t *testing.T, level Level) *launchEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &launchEnv{root: root, work: root + "/w", exe: root + "/bin/" + ConfineName}
	for _, d := range []string{e.work + "/daemoncfg/pathgrant", e.work + "/agentstate/pathgrant", root + "/bin", root + "/tmp"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(e.exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	daemonEnv := map[string]string{"XDG_CONFIG_HOME": e.work + "/daemoncfg"}
	e.l = Launcher{Confinement: Confinement{Level: level, Bwrap: "/usr/bin/bwrap"}, Getenv: func(k string) string { return daemonEnv[k] },
		Home: root + "/home", Socket: root + "/run/pathgrant.sock"}
	e.pol = wire.Policy{Session: "s1", Workspace: []string{e.work}, Used: []guard.Scope{{Op: guard.OpRead, Path: root + "/granted.txt", Kind: guard.KindFile}}}
	e.req = wire.ExecRequest{Path: "/bin/bash", Argv: []string{"bash", "-c", "make"}, Exe: e.exe,
		Env: []string{"HOME=" + root + "/home", "TMPDIR=" + root + "/tmp", "XDG_STATE_HOME=" + e.work + "/agentstate"}}
	return e
}

// TestLaunch: the daemon prepares the view (hiding what both its own and
// the command's environment name), the inner step, the job and the
// session tmp dir; what it keeps outside the view is what Outside
// reports.
func TestLaunch(t *testing.T) {
	e := newLaunchEnv(t, LevelFull)
	l, err := e.l.Launch(e.pol, devicepolicy.Policy{Confinement: true}, e.req)
	if err != nil {
		t.Fatal(err)
	}
	p := l.Prepared
	args := strings.Join(p.Args, " ")
	var job rules.Job
	if err := json.Unmarshal(p.Job, &job); err != nil {
		t.Fatalf("job: %v", err)
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"bubblewrap", p.Bwrap == "/usr/bin/bwrap" && p.Level == LevelFull && p.Unconfined == ""},
		{"namespaces", strings.HasPrefix(args, strings.Join(Namespaces, " "))},
		{"workspace read-write", strings.Contains(args, "--bind-try "+e.work+" "+e.work)},
		{"the daemon's folder hidden", strings.Contains(args, "--tmpfs "+e.work+"/daemoncfg/pathgrant")},
		{"the command's folder hidden", strings.Contains(args, "--tmpfs "+e.work+"/agentstate/pathgrant")},
		{"the inner step is the front end", slices.Equal(p.Inner, []string{e.exe}) && strings.Contains(args, "--ro-bind-try "+e.exe)},
		{"no -- in the options", !slices.Contains(p.Args, "--")},
		{"the job runs the command", job.Path == "/bin/bash" && slices.Equal(job.Argv, e.req.Argv) && len(job.Rules) > 0},
		{"tmp dir under TMPDIR", strings.HasPrefix(p.TmpDir, e.root+"/tmp/") && slices.ContainsFunc(job.Rules, func(r rules.Rule) bool { return r.Path == p.TmpDir })},
		{"the used grant readable", slices.ContainsFunc(job.Rules, func(r rules.Rule) bool { return r.Path == e.root+"/granted.txt" })},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: args %q inner %q tmp %q job %+v", c.name, p.Args, p.Inner, p.TmpDir, job)
		}
	}
	if err := os.WriteFile(e.root+"/secret", nil, 0o600); err != nil { // a missing path in /tmp is the command's own
		t.Fatal(err)
	}
	if got := l.Outside([]string{e.work + "/a.txt", e.root + "/secret", e.root + "/granted.txt"}); !slices.Equal(got, []string{e.root + "/secret"}) {
		t.Errorf("Outside = %q; want only %s", got, e.root+"/secret")
	}
}

// TestLaunchRefuses: the device policy's switch, a machine without
// Landlock, a relative program and a binary that is not pathgrant's.
func TestLaunchRefuses(t *testing.T) {
	tests := []struct {
		name       string
		level      Level
		off        bool
		edit       func(*wire.ExecRequest)
		unconfined bool
		err        string
	}{
		{"confinement off", LevelFull, true, nil, true, ""},
		{"no Landlock", LevelNone, false, nil, false, "cannot confine"},
		{"a level never probed", "", false, nil, false, "unknown confinement level"},
		{"relative program", LevelFull, false, func(r *wire.ExecRequest) { r.Path = "bash" }, false, "absolute"},
		{"relative program, Seatbelt", LevelSeatbelt, false, func(r *wire.ExecRequest) { r.Path = "bash" }, false, "absolute"},
		{"a terminal that is none, Seatbelt", LevelSeatbelt, false, func(r *wire.ExecRequest) { r.Terminals = []string{"/etc/passwd"} }, false, "not a terminal"},
		{"confinement off, Seatbelt", LevelSeatbelt, true, nil, true, ""},
		{"not pathgrant's binary", LevelFull, false, func(r *wire.ExecRequest) { r.Exe = "/usr/bin/env" }, false, "not a pathgrant binary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newLaunchEnv(t, tt.level)
			if tt.edit != nil {
				tt.edit(&e.req)
			}
			l, err := e.l.Launch(e.pol, devicepolicy.Policy{Confinement: !tt.off}, e.req)
			switch {
			case tt.unconfined && (err != nil || !strings.Contains(l.Prepared.Unconfined, "confinement = false") || l.Prepared.Job != nil):
				t.Errorf("Launch = %+v, %v; want unconfined, saying why, with no job", l.Prepared, err)
			case !tt.unconfined && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("Launch error %v; want one saying %q", err, tt.err)
			}
		})
	}
}

// TestLaunchLandlockOnly: without bubblewrap the job alone goes back, with
// the command's terminals in its rules.
func TestLaunchLandlockOnly(t *testing.T) {
	e := newLaunchEnv(t, LevelLandlock)
	e.req.Terminals = []string{"/dev/pts/7"}
	l, err := e.l.Launch(e.pol, devicepolicy.Policy{Confinement: true}, e.req)
	if err != nil {
		t.Fatal(err)
	}
	var job rules.Job
	if err := json.Unmarshal(l.Prepared.Job, &job); err != nil {
		t.Fatal(err)
	}
	if l.Prepared.Bwrap != "" || l.Prepared.Args != nil || !slices.ContainsFunc(job.Rules, func(r rules.Rule) bool { return r.Path == "/dev/pts/7" }) {
		t.Errorf("prepared %+v, rules %+v; want no bubblewrap and the terminal in the rules", l.Prepared, job.Rules)
	}
	if !job.Isolate || slices.ContainsFunc(job.Rules, func(r rules.Rule) bool { return r.Path == procRoot }) {
		t.Errorf("job isolate %v, rules %+v; want the isolation filter and no rule on the whole of /proc", job.Isolate, job.Rules)
	}
}

// TestLaunchFullNotIsolated: the full level's view and PID namespace do
// what the isolation filter does, so its job does not ask for it, and
// its /proc (the namespace's own) is read as a tree.
func TestLaunchFullNotIsolated(t *testing.T) {
	e := newLaunchEnv(t, LevelFull)
	l, err := e.l.Launch(e.pol, devicepolicy.Policy{Confinement: true}, e.req)
	if err != nil {
		t.Fatal(err)
	}
	var job rules.Job
	if err := json.Unmarshal(l.Prepared.Job, &job); err != nil {
		t.Fatal(err)
	}
	if job.Isolate || !slices.ContainsFunc(job.Rules, func(r rules.Rule) bool { return r.Path == procRoot }) {
		t.Errorf("job isolate %v, rules %+v; want no isolation filter and /proc as a tree", job.Isolate, job.Rules)
	}
}

func TestInnerStep(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"with/pathgrant", "with/" + ConfineName, "without/pathgrant"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, exe string
		want      []string
		bins      ViewConfig
	}{
		{"the lean binary", dir + "/with/" + ConfineName, []string{dir + "/with/" + ConfineName}, ViewConfig{Confine: dir + "/with/" + ConfineName}},
		{"pathgrant, the lean binary next to it", dir + "/with/pathgrant", []string{dir + "/with/" + ConfineName},
			ViewConfig{Exe: dir + "/with/pathgrant", Confine: dir + "/with/" + ConfineName}},
		{"pathgrant alone", dir + "/without/pathgrant", []string{dir + "/without/pathgrant", "exec", "--inner"}, ViewConfig{Exe: dir + "/without/pathgrant"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, bins := InnerStep(tt.exe)
			if !slices.Equal(got, tt.want) || bins.Exe != tt.bins.Exe || bins.Confine != tt.bins.Confine {
				t.Errorf("InnerStep(%s) = %q %+v; want %q %+v", tt.exe, got, bins, tt.want, tt.bins)
			}
		})
	}
}
