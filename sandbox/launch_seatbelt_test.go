package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pathgrant/devicepolicy"
	"pathgrant/sandbox/seatbelt"
	"pathgrant/wire"
)

// TestSeatbeltSteps: each kind of mount the view makes becomes its step;
// the system's mounts are the profile's own; a mount of no known kind
// refuses the profile.
func TestSeatbeltSteps(t *testing.T) {
	tests := []struct {
		m    Mount
		kind seatbelt.Kind // 0: no step
		err  bool
	}{
		{Mount{Op: "--ro-bind", Src: "/usr", Dst: "/usr", Why: "system"}, 0, false},
		{Mount{Op: "--tmpfs", Dst: "/tmp", Why: "private /tmp"}, 0, false},
		{Mount{Op: "--ro-bind-try", Src: "/run/r.conf", Dst: "/run/r.conf", Why: "name resolution"}, 0, false},
		{Mount{Op: "--bind-try", Src: "/w", Dst: "/w", Why: "workspace"}, seatbelt.ReadWrite, false},
		{Mount{Op: "--bind", Src: "/w/sub", Dst: "/w/sub", Why: "pinned"}, seatbelt.ReadWrite, false},
		{Mount{Op: "--bind-try", Src: "/s/agent", Dst: "/s/agent", Why: "ssh agent"}, seatbelt.Socket, false},
		{Mount{Op: "--ro-bind", Src: "/w/.git/config", Dst: "/w/.git/config", Why: "protected"}, seatbelt.NoWrite, false},
		{Mount{Op: "--ro-bind", Src: "/w/.claude", Dst: "/w/.claude", Why: "protected (folder)"}, seatbelt.NoWrite, false},
		{Mount{Op: "--ro-bind", Src: "/run/empty", Dst: "/w/.vscode", Why: "protected (empty)"}, seatbelt.NoWrite, false},
		{Mount{Op: "--tmpfs", Dst: "/w/.codex", Why: "protected (empty)"}, seatbelt.NoWrite, false},
		{Mount{Op: "--remount-ro", Dst: "/w/.codex", Why: "protected (empty)"}, seatbelt.NoWrite, false},
		{Mount{Op: "--tmpfs", Dst: "/w/.ssh", Why: "hidden"}, seatbelt.Hidden, false},
		{Mount{Op: "--ro-bind", Src: "/dev/null", Dst: "/w/agent.sock", Why: "hidden"}, seatbelt.Hidden, false},
		{Mount{Op: "--ro-bind-try", Src: "/t", Dst: "/t", Why: "toolchain"}, seatbelt.ReadExec, false},
		{Mount{Op: "--ro-bind-try", Src: "/bin/pathgrant", Dst: "/bin/pathgrant", Why: "pathgrant"}, seatbelt.ReadExec, false},
		{Mount{Op: "--ro-bind-try", Src: "/d", Dst: "/d", Why: "approvable (names only)"}, seatbelt.Names, false},
		{Mount{Op: "--ro-bind-try", Src: "/d/f", Dst: "/d/f", Why: "grant"}, seatbelt.Read, false},
		{Mount{Op: "--ro-bind-try", Src: "/r", Dst: "/r", Why: "read-only root"}, seatbelt.Read, false},
		{Mount{Op: "--ro-bind-try", Src: "/h/.gitconfig", Dst: "/h/.gitconfig", Why: "read-only file"}, seatbelt.Read, false},
		{Mount{Op: "--symlink", Src: "/opt/go", Dst: "/h/go", Why: "toolchain"}, seatbelt.Names, false},
		{Mount{Op: "--ro-bind", Src: "/x", Dst: "/x", Why: "something new"}, 0, true},
		{Mount{Op: "--overlay", Src: "/x", Dst: "/x", Why: "workspace"}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.m.Op+" "+tt.m.Why, func(t *testing.T) {
			steps, err := seatbeltSteps([]Mount{tt.m})
			switch {
			case (err != nil) != tt.err:
				t.Fatalf("seatbeltSteps(%+v) error %v, want error %v", tt.m, err, tt.err)
			case tt.kind == 0 && len(steps) > 0:
				t.Errorf("seatbeltSteps(%+v) = %+v, want no step", tt.m, steps)
			case tt.kind != 0 && (len(steps) != 1 || steps[0].Kind != tt.kind || steps[0].Path != tt.m.Dst):
				t.Errorf("seatbeltSteps(%+v) = %+v, want one %v step at %s", tt.m, steps, tt.kind, tt.m.Dst)
			}
		})
	}
	pair := []Mount{{Op: "--tmpfs", Dst: "/w/.ssh", Why: "hidden"}, {Op: "--remount-ro", Dst: "/w/.ssh", Why: "hidden"}}
	if steps, err := seatbeltSteps(pair); err != nil || len(steps) != 1 || steps[0].Kind != seatbelt.Hidden {
		t.Errorf("a hidden tmpfs remounted read-only: %+v, %v; want one hidden step", steps, err)
	}
}

// TestSeatbeltViewsTranslate: every mount real views make, over a tree
// holding every protected member present and absent, hidden folders in
// the workspace, grants, device roots (one through a link), the ssh
// agent and the pathgrant binaries, has a step.
func TestSeatbeltViewsTranslate(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := root + "/home"
	for _, d := range []string{w + "/.git/hooks", w + "/.ssh", w + "/.vscode", w + "/sub/.git/info", w + "/Downloads", root + "/opt/tool", root + "/run"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{w + "/.git/config", w + "/.envrc", w + "/sub/.git/HEAD", w + "/sub/.git/objects", w + "/Downloads/r.csv", root + "/run/agent", root + "/bin/pathgrant"} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(root+"/opt/tool", root+"/tool-link"); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": w, "SSH_AUTH_SOCK": root + "/run/agent"}
	in := Input{Policy: wire.Policy{Workspace: []string{w}, ReadOnly: []string{root + "/opt"},
		Grants: []wire.Scope{{Op: wire.OpRead, Path: w + "/Downloads/r.csv", Kind: wire.KindFile}}},
		TmpDir: root + "/run", Approvable: []string{w + "/Downloads"},
		Device: Device{Toolchains: []string{root + "/tool-link"}, SSHAgent: true}}
	for _, empty := range []string{"", root + "/opt/tool"} {
		cfg := WithHidden(ViewConfig{Exe: root + "/bin/pathgrant", EmptyDir: empty}, root+"/sock/s", true, Environ{Getenv: func(k string) string { return env[k] }, Home: w})
		view, err := BuildView(in, cfg, OSFS{})
		if err != nil {
			t.Fatal(err)
		}
		steps, err := seatbeltSteps(view.Mounts)
		if err != nil {
			t.Fatalf("%v\nmounts: %+v", err, view.Mounts)
		}
		kinds := map[seatbelt.Kind]bool{}
		for _, s := range steps {
			kinds[s.Kind] = true
		}
		for _, k := range []seatbelt.Kind{seatbelt.Hidden, seatbelt.Names, seatbelt.Read, seatbelt.ReadExec, seatbelt.ReadWrite, seatbelt.NoWrite, seatbelt.Socket} {
			if !kinds[k] {
				t.Errorf("no %v step from the mounts %+v", k, view.Mounts)
			}
		}
	}
}

// TestLaunchSeatbelt: at LevelSeatbelt the daemon prepares a profile and
// the session's tmp dir, no inner step, job, bubblewrap or placeholder;
// a refusal in a system location is not the session's to explain.
func TestLaunchSeatbelt(t *testing.T) {
	e := newLaunchEnv(t, LevelSeatbelt)
	e.l.Confinement.Developer = "/Library/Developer/CommandLineTools"
	l, err := e.l.Launch(e.pol, devicepolicy.Policy{Confinement: true, AllowProtected: []string{".envrc"}}, e.req)
	if err != nil {
		t.Fatal(err)
	}
	p := l.Prepared
	checks := []struct {
		name string
		ok   bool
	}{
		{"level", p.Level == wire.LevelSeatbelt && !p.Level.Unconfined()},
		{"no inner step, job, bubblewrap or placeholders", p.Inner == nil && p.Job == nil && p.Bwrap == "" && p.Args == nil && p.Placeholders == nil},
		{"tmp dir", strings.HasPrefix(p.TmpDir, e.root+"/tmp/pathgrant-exec-")},
		{"workspace for the after-run check", slices.Equal(p.Workspace, []string{e.work})},
		{"workspace written", strings.Contains(p.Seatbelt, `(allow file-read* file-map-executable process-exec file-write* file-link (subpath "`+e.work+`"))`)},
		{"the once grant read", strings.Contains(p.Seatbelt, `(allow file-read* (subpath "`+e.root+`/granted.txt"))`)},
		{"the developer folder", strings.Contains(p.Seatbelt, ";; developer folder (xcode-select): /Library/Developer/CommandLineTools")},
		{"the socket hidden", strings.Contains(p.Seatbelt, ";; pathgrant's socket: "+e.root+"/run/pathgrant.sock")},
		{"the command's state folder hidden", strings.Contains(p.Seatbelt, ";; hidden: "+e.work+"/agentstate/pathgrant")},
		{"an opened member left open", !strings.Contains(p.Seatbelt, e.work+"/.envrc")},
		{"a closed one refused", strings.Contains(p.Seatbelt, ";; protected (any case): "+e.work+"/.bashrc")},
		{"system refusals not explained", slices.Equal(l.Outside([]string{"/usr/bin/x", "/System/Library/y", "/nowhere/secret"}), []string{"/nowhere/secret"})},
		{"workspace refusals not explained", len(l.Outside([]string{e.work + "/x"})) == 0},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Errorf("prepared %+v\n%s", p, p.Seatbelt)
			}
		})
	}
}

// TestSeatbeltSocketFolder: the daemon's socket folder is hidden whole
// unless a step shows something inside it; the socket always.
func TestSeatbeltSocketFolder(t *testing.T) {
	fsys := NewMemoFS(OSFS{})
	tmp := seatbelt.Step{Path: "/run/u/pathgrant-exec/s1", Kind: seatbelt.ReadWrite, Why: "tmp"}
	tests := []struct {
		name   string
		steps  []seatbelt.Step
		folder bool
	}{
		{"nothing inside", []seatbelt.Step{{Path: "/w", Kind: seatbelt.ReadWrite, Why: "workspace"}}, true},
		{"the tmp dir inside", []seatbelt.Step{tmp}, false},
		{"only a refusal inside", []seatbelt.Step{{Path: "/run/u/x", Kind: seatbelt.NoWrite, Why: "protected"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := socketSteps("/run/u/pathgrant.sock", tt.steps, fsys)
			has := func(p string) bool {
				return slices.ContainsFunc(out, func(s seatbelt.Step) bool { return s.Path == p && s.Kind == seatbelt.Hidden })
			}
			if has("/run/u") != tt.folder || !has("/run/u/pathgrant.sock") {
				t.Errorf("socketSteps = %+v; want the folder hidden %v and the socket hidden", out, tt.folder)
			}
		})
	}
	if out := socketSteps("", nil, fsys); out != nil {
		t.Errorf("no socket: %+v", out)
	}
}

// TestUnheld: a blocked or protected path the view did not hold, in or
// around a write area, is refused; one the view holds, or one outside
// every write area, is left to the view.
func TestUnheld(t *testing.T) {
	in := Input{Policy: wire.Policy{Workspace: []string{"/w"}, BlockedWrite: []string{"/w/out", "/elsewhere", "/"},
		Protected: []string{"/w/held"}}, TmpDir: "/t"}
	got := unheld(in, View{ByMount: []string{"/w/held"}}, NewMemoFS(OSFS{}))
	var paths []string
	for _, s := range got {
		if s.Kind != seatbelt.NoWrite {
			t.Errorf("step %+v is not a refusal", s)
		}
		paths = append(paths, s.Path)
	}
	if want := []string{"/", "/w/out"}; !slices.Equal(paths, want) {
		t.Errorf("unheld = %v, want %v", paths, want)
	}
}

// TestDeveloperDir: the folder xcode-select's link names, or the Xcode
// bundle holding it; nothing for a missing link or a file.
func TestDeveloperDir(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{root + "/CLT", root + "/Xcode.app/Contents/Developer"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(root+"/file", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, target, want string }{
		{"command line tools", root + "/CLT", root + "/CLT"},
		{"xcode", root + "/Xcode.app/Contents/Developer", root + "/Xcode.app"},
		{"a file", root + "/file", ""},
		{"dangling", root + "/gone", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			link := filepath.Join(root, tt.name+"-link")
			if err := os.Symlink(tt.target, link); err != nil {
				t.Fatal(err)
			}
			if got := DeveloperDir(link); got != tt.want {
				t.Errorf("DeveloperDir = %q, want %q", got, tt.want)
			}
		})
	}
	if got := DeveloperDir(root + "/no-link"); got != "" {
		t.Errorf("no link: %q", got)
	}
}
