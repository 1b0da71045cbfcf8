package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"pathgrant/sandbox/kernel"
	"pathgrant/sandbox/seatbelt"
	"pathgrant/wire"
)

func TestAssess(t *testing.T) {
	tests := []struct {
		name  string
		facts Facts
		level Level
		gap   string // among the gaps
	}{
		{"bwrap and landlock 7", Facts{LandlockABI: 7, Bwrap: "/usr/bin/bwrap", UserNS: true}, LevelFull, GapMetadata},
		{"no bwrap", Facts{LandlockABI: 7}, LevelLandlock, GapNoView},
		{"no bwrap: no network namespace", Facts{LandlockABI: 7}, LevelLandlock, GapNetwork},
		{"no user namespaces", Facts{LandlockABI: 7, Bwrap: "/usr/bin/bwrap"}, LevelLandlock, GapNoView},
		{"landlock 5: no scopes", Facts{LandlockABI: 5, Bwrap: "/usr/bin/bwrap", UserNS: true}, LevelFull, GapNoScopes},
		{"landlock too old", Facts{LandlockABI: 4, Bwrap: "/usr/bin/bwrap", UserNS: true}, LevelNone, GapNoLandlock},
		{"no landlock", Facts{LandlockErr: syscall.ENOSYS, Bwrap: "/usr/bin/bwrap", UserNS: true}, LevelNone, GapNoLandlock},
		{"macOS: Seatbelt", Facts{LandlockErr: syscall.ENOSYS, SandboxExec: wire.SandboxExec}, LevelSeatbelt, seatbelt.GapProcesses},
		{"macOS: Seatbelt leaves the network", Facts{LandlockErr: syscall.ENOSYS, SandboxExec: wire.SandboxExec}, LevelSeatbelt, GapNetwork},
		{"Landlock before Seatbelt", Facts{LandlockABI: 7, SandboxExec: wire.SandboxExec}, LevelLandlock, GapNoView},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Assess(tt.facts)
			if c.Level == LevelFull && slices.Contains(c.Gaps, GapNetwork) {
				t.Errorf("the full level has a network namespace per command, but says %q", GapNetwork)
			}
			if c.Level != tt.level || !slices.Contains(c.Gaps, tt.gap) {
				t.Errorf("Assess = %+v; want level %s with gap %q", c, tt.level, tt.gap)
			}
			if (c.Level == LevelNone) != (c.LandlockErr != "") {
				t.Errorf("landlock error %q at level %s", c.LandlockErr, c.Level)
			}
		})
	}
}

func TestProbeIsConsistent(t *testing.T) {
	c := Probe()
	if c.Level == LevelFull && (c.Bwrap == "" || !c.UserNS || c.LandlockABI < MinLandlockABI) {
		t.Errorf("Probe = %+v", c)
	}
}

// TestBuildView: on a real workspace, the protected paths become mounts
// (existing ones read-only, missing ones empty read-only folders, a
// missing settings file its folder read-only), the folders on the way are
// pinned, hidden paths in a bound tree are covered, and only workspaces
// get the agent-settings mounts.
func TestBuildView(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w, cache := root+"/w", root+"/cache"
	for _, d := range []string{w + "/.claude", w + "/.git/hooks", w + "/state", cache} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{w + "/.claude/settings.json", w + "/.git/config"} {
		if err := os.WriteFile(f, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	in := Input{Policy: wire.Policy{Workspace: []string{w}, Protected: []string{w + "/.claude/settings.json"}},
		Device: Device{Caches: []string{cache}, Toolchains: []string{root + "/missing-toolchain"}}}
	v, err := BuildView(in, ViewConfig{Hidden: []string{w + "/state", root + "/elsewhere"}}, OSFS{})
	if err != nil {
		t.Fatal(err)
	}
	has := func(op, dst string) bool {
		return slices.ContainsFunc(v.Mounts, func(m Mount) bool { return m.Op == op && m.Dst == dst })
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"workspace read-write", has("--bind-try", w)},
		{"cache read-write", has("--bind-try", cache)},
		{"missing toolchain left out", !slices.ContainsFunc(v.Mounts, func(m Mount) bool { return strings.Contains(m.Dst, "missing-toolchain") })},
		{"private /tmp", has("--tmpfs", "/tmp")},
		{"missing local settings: .claude read-only", has("--ro-bind", w+"/.claude")},
		{"mounts the read-only .claude hides left out", !has("--ro-bind", w+"/.claude/settings.json") && !has("--bind", w+"/.claude")},
		{"missing .codex: empty read-only folder", has("--tmpfs", w+"/.codex") && has("--remount-ro", w+"/.codex")},
		{".git pinned", has("--bind", w+"/.git")},
		{".git/hooks read-only", has("--ro-bind", w+"/.git/hooks")},
		{".git/config read-only", has("--ro-bind", w+"/.git/config")},
		{"hidden folder in the workspace covered", has("--tmpfs", w+"/state") && has("--remount-ro", w+"/state")},
		{"hidden folder outside the view left alone", !has("--tmpfs", root+"/elsewhere")},
		{"no agent-settings mounts in a cache", !has("--tmpfs", cache+"/.codex")},
		{"settings kept from the Landlock split", slices.Contains(v.ByMount, w+"/.claude/settings.json")},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Errorf("mounts:\n%v", v.Mounts)
			}
		})
	}
	if _, err := os.Lstat(w + "/.codex"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("BuildView created %s: %v", w+"/.codex", err)
	}
}

// TestUncovered: a mount a later one hides (at its place or above) is
// left out; -try binds, remounts and links hide nothing.
func TestUncovered(t *testing.T) {
	bind := func(op, dst string) Mount { return Mount{Op: op, Src: dst, Dst: dst} }
	pin, file, folder := bind("--bind", "/w/a"), bind("--ro-bind", "/w/a/s.json"), bind("--ro-bind", "/w/a")
	empty, ro := Mount{Op: "--tmpfs", Dst: "/w/b"}, Mount{Op: "--remount-ro", Dst: "/w/b"}
	tests := []struct {
		name     string
		in, want []Mount
	}{
		{"a folder made read-only after its pin and file", []Mount{pin, file, folder}, []Mount{folder}},
		{"an empty read-only folder stays", []Mount{empty, ro}, []Mount{empty, ro}},
		{"a later empty folder above hides both", []Mount{empty, ro, {Op: "--tmpfs", Dst: "/w"}}, []Mount{{Op: "--tmpfs", Dst: "/w"}}},
		{"a -try bind hides nothing", []Mount{file, bind("--ro-bind-try", "/w/a")}, []Mount{file, bind("--ro-bind-try", "/w/a")}},
		{"a sibling hides nothing", []Mount{file, bind("--ro-bind", "/w/ab")}, []Mount{file, bind("--ro-bind", "/w/ab")}},
		{"an earlier mount above is kept", []Mount{folder, file}, []Mount{folder, file}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := uncovered(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("uncovered = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestScopeABI: the policy side and the kernel side agree on when IPC
// scopes exist.
func TestScopeABI(t *testing.T) {
	if kernel.ScopeABI != ScopeLandlockABI || kernel.MinABI != MinLandlockABI {
		t.Errorf("kernel: scopes from ABI %d, minimum %d; sandbox: %d, %d", kernel.ScopeABI, kernel.MinABI, ScopeLandlockABI, MinLandlockABI)
	}
}
