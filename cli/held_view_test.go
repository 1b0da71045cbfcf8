package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pathgrant/ipc"
	"pathgrant/sandbox"
	"pathgrant/sandbox/heldfs"
	"pathgrant/sandbox/supervise"
	"pathgrant/tools"
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

// TestDoorWalkHeldOthersGetNothing: while a command of the session is
// paused in an open served by pathgrant's file system, the same file
// through the mount (its token read from the command's own mount table)
// gets nothing, and raises no request, for a command of another session
// and for a process outside every sandbox (the unconfined agent).
func TestDoorWalkHeldOthersGetNothing(t *testing.T) {
	w := newHeldWalk(t, holdModes()[0])
	file := w.dl + "/others.csv"
	writeExecFile(t, file, "content-of-others\n")
	script := w.script(t, pyRead(file, "runs-others.txt"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan walked, 1)
	go func() {
		done <- toolWalked(w.srv.Engine().RunTool(ctx, w.sess.ID, tools.ExecuteShellCommand, shellArgs(script)))
	}()
	r := w.decideHeld(t, file, nil)
	if r.ID == "" {
		cancel()
		t.Fatalf("the open was never held: %s", (<-done).out)
	}
	through := filepath.Join(heldMountOf(t, file), filepath.Base(file))
	if _, err := os.ReadFile(through); !errors.Is(err, os.ErrPermission) {
		t.Errorf("a process outside every sandbox read %s: %v", through, err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel2()
	// a script, which the guard cannot see into: the sandbox decides
	writeExecFile(t, w.home+"/other/read-others.sh", "cat "+through+"\n")
	other := toolWalked(w.srv.Engine().RunTool(ctx2, w.other.ID, tools.ExecuteShellCommand, shellArgs("bash ./read-others.sh")))
	if other.ran || strings.Contains(other.out, "content-of-others") || !strings.Contains(other.out, "cat: "+through) {
		t.Errorf("another session's command read %s: %s", through, other.out)
	}
	for _, p := range w.srv.Engine().Pending() {
		if p.ID != r.ID {
			t.Errorf("a request was raised by a reader of the mount: %+v", p)
		}
	}
	cancel()
	<-done
}

// heldMountOf is the mount path of the served root that holds file, as
// the command paused in its open binds it: read from that command's
// /proc/PID/mountinfo (the bind's root is TOKEN/INDEX of the mount).
func heldMountOf(t *testing.T, file string) string {
	t.Helper()
	out, err := exec.Command("pgrep", "-n", "-f", "read.py "+file).Output()
	if err != nil {
		t.Fatalf("pgrep: %v", err)
	}
	info, err := os.ReadFile("/proc/" + strings.TrimSpace(string(out)) + "/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(info), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && f[4] == filepath.Dir(file) && strings.Contains(line, "fuse.pathgrant") {
			return filepath.Join(filepath.Dir(filepath.Dir(file)), "..", "run", "held", f[3])
		}
	}
	t.Fatalf("no served root in the command's mount table:\n%s", info)
	return ""
}

// denyWhenAsked denies, as the person, every request for path that a
// paused command waits on, until the returned check runs.
func (w *doorWalk) denyWhenAsked(t *testing.T, path string) func(t *testing.T) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			for _, r := range w.srv.Engine().Pending() {
				if r.Path == path && r.Waiting > 0 {
					if _, err := w.srv.Engine().Decide(r.ID, wire.Decision{Scope: "deny"}); err != nil {
						t.Errorf("deny %s: %v", r.ID, err)
					}
				}
			}
		}
	}()
	return func(t *testing.T) { close(done); <-stopped }
}
