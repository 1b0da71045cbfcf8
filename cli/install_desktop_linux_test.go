package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// desktopRig is a scratch home with its XDG folders, and a systemctl
// that records what it is asked; answers false means no user manager.
type desktopRig struct {
	home, config, data string
	calls              []string
	answers            bool
	failOn             string // a call that fails although the manager answers
}

func newDesktopRig(t *testing.T, answers bool) *desktopRig {
	home := t.TempDir()
	return &desktopRig{home: home, config: home + "/cfg", data: home + "/.local/share", answers: answers}
}

func (r *desktopRig) host(exe string) desktopHost {
	getenv := func(k string) string {
		switch k {
		case "HOME":
			return r.home
		case "XDG_CONFIG_HOME":
			return r.config
		}
		return ""
	}
	return desktopHost{getenv: getenv, exe: exe, systemctl: func(args ...string) error {
		call := strings.Join(args, " ")
		r.calls = append(r.calls, call)
		if !r.answers || call == r.failOn {
			return errors.New("Failed to connect to bus: No medium found")
		}
		return nil
	}}
}

// installed is every file install-desktop writes in the rig.
func (r *desktopRig) installed() []string {
	return []string{
		r.config + "/systemd/user/pathgrant.socket",
		r.config + "/systemd/user/pathgrant.service",
		r.data + "/applications/pathgrant.desktop",
		r.config + "/autostart/pathgrant.desktop",
		r.data + "/icons/hicolor/64x64/apps/pathgrant.png",
	}
}

// TestInstallDesktopUnits: install and uninstall, with and without a
// systemd user manager: what is written, said and asked of systemctl, and
// that uninstalling removes exactly what install wrote, leaving the
// person's own files, the store and the config.
func TestInstallDesktopUnits(t *testing.T) {
	exe := "/opt/path grant/bin/pathgrant"
	tests := []struct {
		name      string
		manager   bool
		failOn    string
		before    func(t *testing.T, r *desktopRig) // before install --uninstall
		uninstall bool
		wantLast  string   // the last line said ($HOME: the rig's)
		wantCalls []string // of systemctl --user, in order
		wantErr   string
		kept      []string // files that must stay after uninstall
	}{
		{name: "install without a manager says so in one line", wantLast: noManager,
			wantCalls: []string{"show-environment"}},
		{name: "install with a manager enables and starts the socket", manager: true,
			wantLast:  "enabled and started pathgrant.socket (the first agent call starts pathgrant.service)",
			wantCalls: []string{"show-environment", "daemon-reload", "enable --now pathgrant.socket"}},
		{name: "install says the manager's refusal", manager: true, failOn: "enable --now pathgrant.socket",
			wantErr:   "enable pathgrant.socket: Failed to connect",
			wantCalls: []string{"show-environment", "daemon-reload", "enable --now pathgrant.socket"}},
		{name: "uninstall with a manager stops, disables, removes, reloads", manager: true, uninstall: true,
			wantLast:  "removed $HOME/.local/share/icons/hicolor/64x64/apps/pathgrant.png",
			wantCalls: []string{"show-environment", "disable --now pathgrant.socket pathgrant.service", "daemon-reload"}},
		{name: "uninstall without a manager removes the files", uninstall: true,
			wantLast:  "no systemd user manager answers (systemctl --user): nothing to stop",
			wantCalls: []string{"show-environment"}},
		{name: "uninstall leaves the person's own files, the store and the config", manager: true, uninstall: true,
			before: func(t *testing.T, r *desktopRig) {
				writeRigFile(t, r.config+"/systemd/user/pathgrant.service", "[Service]\nExecStart=/usr/local/bin/mine\n")
				writeRigFile(t, r.config+"/autostart/pathgrant.desktop", "[Desktop Entry]\nExec=mine\n")
				writeRigFile(t, r.data+"/icons/hicolor/64x64/apps/pathgrant.png", "my own icon")
			},
			wantLast:  "left $HOME/.local/share/icons/hicolor/64x64/apps/pathgrant.png: not written by pathgrant install-desktop",
			wantCalls: []string{"show-environment", "disable --now pathgrant.socket pathgrant.service", "daemon-reload"},
			kept: []string{"/cfg/systemd/user/pathgrant.service", "/cfg/autostart/pathgrant.desktop",
				"/.local/share/icons/hicolor/64x64/apps/pathgrant.png"}},
		{name: "uninstall with nothing installed stops nothing", manager: true, uninstall: true,
			before: func(t *testing.T, r *desktopRig) {
				for _, p := range r.installed() {
					os.Remove(p)
				}
			},
			wantCalls: []string{"show-environment", "daemon-reload"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newDesktopRig(t, tt.manager)
			store, policy := r.home+"/.local/state/pathgrant/pathgrant.db", r.config+"/pathgrant/policy.toml"
			writeRigFile(t, store, "the store")
			writeRigFile(t, policy, "# the config\n")
			if tt.uninstall { // installed first, with no manager
				r.answers = false
				if _, err := r.host(exe).install(); err != nil {
					t.Fatal(err)
				}
				r.answers, r.calls = tt.manager, nil
				if tt.before != nil {
					tt.before(t, r)
				}
			}
			r.failOn = tt.failOn
			h := r.host(exe)
			do := h.install
			if tt.uninstall {
				do = h.uninstall
			}
			lines, err := do()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one naming %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.calls, tt.wantCalls) {
				t.Errorf("systemctl --user was asked %q, want %q", r.calls, tt.wantCalls)
			}
			want := strings.ReplaceAll(tt.wantLast, "$HOME", r.home)
			if tt.wantErr == "" && want != "" && (len(lines) == 0 || lines[len(lines)-1] != want) {
				t.Errorf("said %q, want it to end with %q", lines, want)
			}
			for _, p := range append([]string{store, policy}, prefixed(r.home, tt.kept)...) {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s is gone: %v", p, err)
				}
			}
			for _, p := range r.installed() {
				_, err := os.Stat(p)
				switch gone := err != nil; {
				case !tt.uninstall && gone:
					t.Errorf("%s not installed: %v", p, err)
				case tt.uninstall && !gone && !slices.Contains(prefixed(r.home, tt.kept), p):
					t.Errorf("%s left after uninstall", p)
				case !tt.uninstall && !slices.Contains(lines, p):
					t.Errorf("%s written but not said: %q", p, lines)
				}
			}
		})
	}
}

func prefixed(home string, paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, home+p)
	}
	return out
}

// TestInstallDesktop runs the command twice (idempotent) as a person does,
// where no systemd user manager answers (no systemctl on PATH): the one
// line says so; the entries and the service name this binary; the icon
// is there; then --uninstall removes them all.
func TestInstallDesktop(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "cfg"))
	t.Setenv("PATH", t.TempDir())
	exe, _ := os.Executable()
	r := &desktopRig{home: home, config: home + "/cfg", data: home + "/.local/share"}
	for range 2 {
		code, stdout, stderr := runCLI("install-desktop")
		want := strings.Join(append(r.installed(), noManager), "\n") + "\n"
		if code != 0 || stderr != "" || stdout != want {
			t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and %q", code, stdout, stderr, want)
		}
	}
	for _, p := range []string{home + "/.local/share/applications/pathgrant.desktop", home + "/cfg/autostart/pathgrant.desktop"} {
		data, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(data), "Exec="+desktopQuote(exe)+" app\n") || !strings.Contains(string(data), "[Desktop Entry]") {
			t.Fatalf("%s: %q %v", p, data, err)
		}
	}
	service, err := os.ReadFile(home + "/cfg/systemd/user/pathgrant.service")
	if q, _ := systemdQuote(exe); err != nil || !strings.Contains(string(service), "\nExecStart="+q+" serve\n") {
		t.Fatalf("service: %q %v", service, err)
	}
	if fi, err := os.Stat(home + "/.local/share/icons/hicolor/64x64/apps/pathgrant.png"); err != nil || fi.Size() == 0 {
		t.Fatalf("icon: %v", err)
	}
	code, stdout, stderr := runCLI("install-desktop", "--uninstall")
	if code != 0 || stderr != "" || !strings.HasSuffix(stdout, "nothing to stop\n") {
		t.Fatalf("uninstall: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, p := range r.installed() {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left after uninstall", p)
		}
	}
}

// TestInstalledUnitsVerify: the units as written, for a binary in a
// folder with a blank, a % and a $ in its name, pass systemd-analyze
// verify as the user's units (XDG_RUNTIME_DIR a scratch folder: there is
// no user manager).
func TestInstalledUnitsVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed on this machine (CI has it)")
	}
	r := newDesktopRig(t, false)
	dir := r.home + "/my apps/50% of $HOME;x"
	exe := dir + "/pathgrant"
	writeRigFile(t, exe, "#!/bin/sh\n")
	if err := os.Chmod(exe, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := r.host(exe).install(); err != nil {
		t.Fatal(err)
	}
	units := r.installed()[:2]
	runtime := t.TempDir()
	cmd := exec.Command(analyze, append([]string{"--user", "verify"}, units...)...)
	cmd.Env = append(os.Environ(), "HOME="+r.home, "XDG_CONFIG_HOME="+r.config, "XDG_RUNTIME_DIR="+runtime)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestSystemdQuote: what systemd reads back as the same path, and the
// paths it cannot start, refused before anything is written.
func TestSystemdQuote(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{in: "/usr/bin/pathgrant", want: "/usr/bin/pathgrant"},
		{in: "/opt/my apps/pathgrant", want: `"/opt/my apps/pathgrant"`},
		{in: "/opt/100%/pathgrant", want: "/opt/100%%/pathgrant"},
		{in: "/opt/$HOME/pathgrant", want: "/opt/$HOME/pathgrant"},
		{in: "/opt/a;b/pathgrant", want: `"/opt/a;b/pathgrant"`},
		{in: "pathgrant", err: "not an absolute path"},
		{in: `/opt/"q"/pathgrant`, err: "quote"},
		{in: `/opt/a\b/pathgrant`, err: "backslash"},
		{in: "/opt/a\nb/pathgrant", err: "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := systemdQuote(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("systemdQuote(%q) = %q, %v; want an error naming %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("systemdQuote(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}
