package cli

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pathgrant/appdirs"
)

// fakeLaunchd stands for launchctl and the user's GUI domain: bootout
// fails when the agent is not loaded, and after a bootout the next settle
// bootstraps fail, as while launchd still holds the label.
type fakeLaunchd struct {
	loaded, broken bool
	settle, busy   int
	calls          [][]string
	sleeps         []time.Duration
}

func (f *fakeLaunchd) launchctl(argv []string) error {
	f.calls = append(f.calls, slices.Clone(argv))
	switch argv[1] {
	case "bootout":
		if !f.loaded {
			return errors.New("Boot-out failed: 3: No such process")
		}
		f.loaded, f.busy = false, f.settle
	case "bootstrap":
		switch {
		case f.broken || f.busy > 0:
			f.busy--
			return errors.New("Bootstrap failed: 5: Input/output error")
		case f.loaded:
			return errors.New("Bootstrap failed: 37: Operation already in progress")
		}
		f.loaded = true
	}
	return nil
}

func (f *fakeLaunchd) sleep(d time.Duration) { f.sleeps = append(f.sleeps, d) }

// agentTestHost is a host with a scratch home (whose name holds a space
// and a non-ASCII letter) and the shell's own store and XDG variables
// set, which the agent must not follow.
func agentTestHost(t *testing.T, f *fakeLaunchd) (agentHost, string) {
	home := filepath.Join(t.TempDir(), "zoë home")
	env := map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "elsewhere"),
		appdirs.StoreEnv: filepath.Join(home, "shell.db"), "TMPDIR": "/var/folders/zz/abc/T/"}
	return agentHost{getenv: func(k string) string { return env[k] }, uid: 501, exe: "/Applications/Path Grant/pathgrant",
		launchctl: f.launchctl, sleep: f.sleep}, home
}

// TestInstallDesktopLaunchAgent drives the macOS install through its
// seam: the plist written 0644, the launchctl commands run, and how a
// loaded agent, a slow launchd and a failing one are handled.
func TestInstallDesktopLaunchAgent(t *testing.T) {
	bootout := []string{launchctlPath, "bootout", "gui/501/dev.pathgrant.daemon"}
	tests := []struct {
		name    string
		launchd fakeLaunchd
		calls   int // bootstraps after the bootout
		sleeps  int
		wantErr string
	}{
		{name: "first install", calls: 1},
		{name: "replaces the loaded agent", launchd: fakeLaunchd{loaded: true}, calls: 1},
		{name: "waits while launchd holds the label", launchd: fakeLaunchd{loaded: true, settle: 3}, calls: 4, sleeps: 3},
		{name: "gives up when launchd never lets go", launchd: fakeLaunchd{loaded: true, settle: 100},
			calls: bootstrapTries, sleeps: bootstrapTries - 1, wantErr: "Input/output error"},
		{name: "a failure with nothing loaded is not retried", launchd: fakeLaunchd{broken: true},
			calls: 1, wantErr: "Input/output error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.launchd
			h, home := agentTestHost(t, &f)
			plist := filepath.Join(home, "Library", "LaunchAgents", "dev.pathgrant.daemon.plist")
			got, err := installLaunchAgent(h)
			wantOut := []string{plist, "gui/501/dev.pathgrant.daemon"}
			if tc.wantErr != "" {
				wantOut = wantOut[:1]
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), plist) {
					t.Errorf("error %v, want one naming %s and %q", err, plist, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, wantOut) {
				t.Errorf("printed %q, want %q", got, wantOut)
			}
			wantCalls := [][]string{bootout}
			for range tc.calls {
				wantCalls = append(wantCalls, []string{launchctlPath, "bootstrap", "gui/501", plist})
			}
			if !slices.EqualFunc(f.calls, wantCalls, slices.Equal) {
				t.Errorf("launchctl ran %q, want %q", f.calls, wantCalls)
			}
			if wantSleeps := slices.Repeat([]time.Duration{bootstrapPause}, tc.sleeps); !slices.Equal(f.sleeps, wantSleeps) {
				t.Errorf("slept %v, want %v", f.sleeps, wantSleeps)
			}
			assertAgentPlist(t, h, plist)
		})
	}
}

// TestInstallDesktopLaunchAgentTwice: installing again rewrites the same
// plist (0644 whatever it was), boots the loaded agent out and loads it
// again.
func TestInstallDesktopLaunchAgentTwice(t *testing.T) {
	var f fakeLaunchd
	h, home := agentTestHost(t, &f)
	plist := filepath.Join(home, "Library", "LaunchAgents", "dev.pathgrant.daemon.plist")
	if _, err := installLaunchAgent(h); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(plist, 0o600); err != nil {
		t.Fatal(err)
	}
	f.calls = nil
	if _, err := installLaunchAgent(h); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{launchctlPath, "bootout", "gui/501/dev.pathgrant.daemon"}, {launchctlPath, "bootstrap", "gui/501", plist}}
	if !slices.EqualFunc(f.calls, want, slices.Equal) || !f.loaded {
		t.Errorf("second install ran %q (loaded %v), want %q", f.calls, f.loaded, want)
	}
	assertAgentPlist(t, h, plist)
	if entries, _ := os.ReadDir(filepath.Dir(plist)); len(entries) != 1 {
		t.Errorf("LaunchAgents holds %d files, want only the plist (no temporary file left)", len(entries))
	}
}

// TestInstallDesktopLaunchAgentSymlink: a plist path that is a symbolic
// link is refused, the link and what it points to left as they were, and
// nothing loaded.
func TestInstallDesktopLaunchAgentSymlink(t *testing.T) {
	var f fakeLaunchd
	h, home := agentTestHost(t, &f)
	plist := filepath.Join(home, "Library", "LaunchAgents", "dev.pathgrant.daemon.plist")
	target := filepath.Join(home, "dotfiles", "agent.plist")
	for _, dir := range []string{filepath.Dir(plist), filepath.Dir(target)} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(target, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, plist); err != nil {
		t.Fatal(err)
	}
	got, err := installLaunchAgent(h)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("install = %q, %v; want a symbolic link error", got, err)
	}
	if data, _ := os.ReadFile(target); string(data) != "mine" {
		t.Errorf("the link's target now holds %q", data)
	}
	if fi, err := os.Lstat(plist); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi, err)
	}
	if len(f.calls) != 0 {
		t.Errorf("launchctl ran %q, want nothing", f.calls)
	}
}

// assertAgentPlist checks the plist written for h: mode 0644, exactly
// the agent running h's binary headless and logging to headless.log in
// the state folder launchd's daemon uses, which exists, is 0700 and is
// one of the folders doctor accepts a headless log in.
func assertAgentPlist(t *testing.T, h agentHost, plist string) {
	t.Helper()
	home := h.getenv("HOME")
	env := launchdEnv(h.getenv)
	store, err := appdirs.DefaultStore(env)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(filepath.Dir(store), "headless.log")
	want, err := daemonAgent(h.exe, logPath, env("TMPDIR")).plist()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(want), "<key>TMPDIR</key>\n\t\t<string>/var/folders/zz/abc/T/</string>") {
		t.Errorf("plist does not pin the shell's TMPDIR, which the socket's folder follows:\n%s", want)
	}
	data, err := os.ReadFile(plist)
	if err != nil || string(data) != string(want) {
		t.Errorf("plist %s: %v\n%s\nwant:\n%s", plist, err, data, want)
	}
	if fi, err := os.Lstat(plist); err != nil || fi.Mode() != 0o644 {
		t.Errorf("plist mode: %v, %v; want -rw-r--r--", fi, err)
	}
	if fi, err := os.Stat(filepath.Dir(logPath)); err != nil || fi.Mode() != os.ModeDir|0o700 {
		t.Errorf("log folder: %v, %v; want a 0700 folder", fi, err)
	}
	if strings.Contains(logPath, "elsewhere") || strings.Contains(logPath, "shell.db") {
		t.Errorf("log %s follows this shell's variables, which launchd's daemon never sees", logPath)
	}
	d := daemonProc{UID: os.Getuid(), Headless: true, Getenv: env, Home: home, Store: store}
	if safe := safeLogFolders(d, appdirs.Socket(env)); folderOf(safe, canonical(logPath)) == "" {
		t.Errorf("log %s is outside the folders doctor accepts a headless log in: %q", logPath, safe)
	}
}
