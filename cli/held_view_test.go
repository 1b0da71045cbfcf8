package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"pathgrant/ipc"
	"pathgrant/sandbox"
	"pathgrant/sandbox/heldfs"
	"pathgrant/sandbox/supervise"
	"pathgrant/wire"
)

// useHeldView mounts a held-open file system for a test daemon on sock,
// as the daemon does at the full level where FUSE can be had (its
// default), and has cfg's views bind the approvable roots from it.
func useHeldView(t testing.TB, cfg *ipc.Config, conf sandbox.Confinement, sock string) {
	t.Helper()
	if conf.Level != sandbox.LevelFull || heldfs.Available() != nil {
		return
	}
	srv, err := heldfs.Mount(filepath.Join(filepath.Dir(sock), "held"), cfg.Logger)
	if err != nil {
		t.Fatalf("mount the held-open file system: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("unmount the held-open file system: %v", err)
		}
	})
	l := cfg.Launcher.(sandbox.Launcher)
	l.HeldView = srv.Dir()
	cfg.Launcher, cfg.Held = l, srv
}

// holdMode is one way a command's opens under the approvable roots wait
// for the person.
type holdMode struct {
	name string
	by   string // what the requests say holds them
	// set configures a walk's daemon for the mode; it skips the test
	// where the machine cannot hold opens that way.
	set func(t testing.TB) func(*ipc.Config)
}

// holdModes are pathgrant's file system (the default) and the seccomp
// supervisor (the fallback where FUSE cannot be had).
func holdModes() []holdMode {
	return []holdMode{
		{"file system", wire.HeldByFS, func(t testing.TB) func(*ipc.Config) {
			if err := heldfs.Available(); err != nil {
				t.Skipf("no FUSE here: %v", err)
			}
			return func(*ipc.Config) {}
		}},
		{"seccomp", wire.HeldBySeccomp, func(t testing.TB) func(*ipc.Config) {
			if err := supervise.Available(); err != nil {
				t.Skipf("this kernel cannot hold opens: %v", err)
			}
			return func(cfg *ipc.Config) {
				l := cfg.Launcher.(sandbox.Launcher)
				l.HeldView = ""
				cfg.Launcher, cfg.Held = l, nil
			}
		}},
	}
}

// TestDoorWalkHeldMode: through every door, a confined command's view
// shows the approvable roots from pathgrant's file system and has no
// seccomp filter at all in the file system mode (nothing held outside the
// roots), and the roots as they are, under the supervisor's filter, in
// the fallback.
func TestDoorWalkHeldMode(t *testing.T) {
	for _, mode := range holdModes() {
		t.Run(mode.name, func(t *testing.T) {
			w := newHeldWalk(t, mode)
			want := map[string]string{"file system": "fuseblk filters 0", "seccomp": " filters 1"}[mode.name]
			names, run := walkDoors(t)
			for _, name := range names {
				t.Run(name, func(t *testing.T) {
					got := run[name](w, t, w.script(t, `echo "$(stat -f -c %T `+w.dl+`) filters $(awk '/^Seccomp_filters:/ {print $2}' /proc/self/status)"`))
					if !got.ran || !strings.Contains(got.out, want) || mode.name == "seccomp" && strings.Contains(got.out, "fuse") {
						t.Errorf("got %q; want %q in it", got.out, want)
					}
				})
			}
		})
	}
}
