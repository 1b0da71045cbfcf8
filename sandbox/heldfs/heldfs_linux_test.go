//go:build linux

package heldfs_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"pathgrant/sandbox/heldfs"
	"pathgrant/wire"
)

// asker answers held reads from a table, and records what was asked.
type asker struct {
	mu     sync.Mutex
	asked  []string
	answer func(ctx context.Context, path string) wire.HoldAnswer
}

func (a *asker) AskHold(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error) {
	a.mu.Lock()
	a.asked = append(a.asked, r.Path)
	a.mu.Unlock()
	return a.answer(ctx, r.Path), nil
}

func (a *asker) got() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

func allow(_ context.Context, path string) wire.HoldAnswer {
	return wire.HoldAnswer{Allowed: true, Path: path}
}

// world is a mounted file system with one registered command whose only
// root is a folder of the test's, and the lines it said.
type world struct {
	srv   *heldfs.Server
	root  string
	token string
	ask   *asker
	mu    sync.Mutex
	lines []string
}

func newWorld(t testing.TB, answer func(context.Context, string) wire.HoldAnswer) *world {
	t.Helper()
	if err := heldfs.Available(); err != nil {
		t.Skipf("no FUSE here: %v", err)
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("no bubblewrap")
	}
	if bwrap, err = filepath.EvalSymlinks(bwrap); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	srv, err := heldfs.Mount(filepath.Join(dir, "held"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("Mount: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{srv: srv, root: root, token: "t1", ask: &asker{answer: answer}}
	self, err := heldfs.Self()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Register(w.token, heldfs.Command{Roots: []string{root}, Ask: w.ask, Holder: self, Bwrap: bwrap,
		Say: func(path, line string) { w.mu.Lock(); w.lines = append(w.lines, line); w.mu.Unlock() }}); err != nil {
		t.Fatalf("Register: %v", err)
	}
	return w
}

// sandbox runs script under bash in a bubblewrap sandbox of the test's
// (a PID namespace of its own, the command's root bound from the mount),
// and returns its output and error.
func (w *world) sandbox(ctx context.Context, script string) (string, error) {
	args := []string{"--dev-bind", "/", "/", "--unshare-pid", "--die-with-parent", "--proc", "/proc",
		"--ro-bind", filepath.Join(w.srv.Dir(), w.token, "0"), w.root, "bash", "-c", script}
	if os.Geteuid() != 0 {
		args = append([]string{"--unshare-user"}, args...)
	}
	out, err := exec.CommandContext(ctx, "bwrap", args...).CombinedOutput()
	return string(out), err
}

func (w *world) said() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines, "\n")
}

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestServedInTheSandbox: what the person allows is read in the sandbox;
// names and metadata are answered without asking; a listing asks for the
// folder; a refusal fails with EACCES and says one line; writes never
// reach the server.
func TestServedInTheSandbox(t *testing.T) {
	w := newWorld(t, func(_ context.Context, path string) wire.HoldAnswer {
		if strings.HasSuffix(path, "secret.txt") {
			return wire.HoldAnswer{Line: "pathgrant: " + path + ": the read was held for approval and refused: denied"}
		}
		return wire.HoldAnswer{Allowed: true, Path: path}
	})
	write(t, filepath.Join(w.root, "report.csv"), "a,b\n")
	write(t, filepath.Join(w.root, "secret.txt"), "s3cret")
	write(t, filepath.Join(w.root, "sub", "deep.txt"), "deep")
	ctx := context.Background()
	tests := []struct {
		name, script, want string
		fails              bool
		asked              []string
		said               string
	}{
		{name: "metadata is not asked", script: "stat -c %s " + w.root + "/report.csv", want: "4", asked: nil},
		{name: "an allowed file is read", script: "cat " + w.root + "/report.csv", want: "a,b", asked: []string{w.root + "/report.csv"}},
		{name: "a denied file fails", script: "cat " + w.root + "/secret.txt", want: "Permission denied", fails: true,
			asked: []string{w.root + "/secret.txt"}, said: "refused: denied"},
		{name: "a listing asks the folder", script: "ls " + w.root + "/sub", want: "deep.txt", asked: []string{w.root + "/sub"}},
		{name: "a write never reaches the server", script: "echo x > " + w.root + "/report.csv", want: "Read-only file system", fails: true},
		{name: "a new file never reaches the server", script: "touch " + w.root + "/new", want: "Read-only file system", fails: true},
		{name: "a delete never reaches the server", script: "rm " + w.root + "/report.csv", want: "Read-only file system", fails: true},
		{name: "a rename never reaches the server", script: "mv " + w.root + "/report.csv " + w.root + "/r2", want: "Read-only file system", fails: true},
		{name: "no program runs from it", script: "cp /bin/true " + w.root + "/t 2>/dev/null; chmod +x " + w.root + "/report.csv 2>/dev/null; " + w.root + "/report.csv",
			want: "Permission denied", fails: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(w.ask.got())
			out, err := w.sandbox(ctx, tt.script)
			if (err != nil) != tt.fails || !strings.Contains(out, tt.want) {
				t.Fatalf("%s: err %v, output %q; want failure %v and %q", tt.script, err, out, tt.fails, tt.want)
			}
			if got := w.ask.got()[before:]; strings.Join(got, ",") != strings.Join(tt.asked, ",") {
				t.Errorf("asked %q, want %q", got, tt.asked)
			}
			if !strings.Contains(w.said(), tt.said) {
				t.Errorf("said %q, want %q in it", w.said(), tt.said)
			}
		})
	}
}

// TestOutsidersGetNothing: this process (outside any sandbox), another
// PID namespace it makes itself, and a command under a token not its own
// get EACCES and raise no request.
func TestOutsidersGetNothing(t *testing.T) {
	w := newWorld(t, allow)
	write(t, filepath.Join(w.root, "report.csv"), "a,b\n")
	through := filepath.Join(w.srv.Dir(), w.token, "0", "report.csv")
	if _, err := os.ReadFile(through); !errors.Is(err, os.ErrPermission) {
		t.Errorf("this process read the mount: %v", err)
	}
	if _, err := os.ReadDir(w.srv.Dir()); !errors.Is(err, os.ErrPermission) {
		t.Errorf("this process listed the mount: %v", err)
	}
	args := []string{"--pid", "--fork", "--mount-proc", "cat", through}
	if os.Geteuid() != 0 {
		args = append([]string{"--user", "--map-root-user"}, args...)
	}
	if out, err := exec.Command("unshare", args...).CombinedOutput(); err == nil || !strings.Contains(string(out), "Permission denied") {
		t.Errorf("a PID namespace of the holder's own, not bubblewrap's child: err %v, %q", err, out)
	}
	if got := w.ask.got(); len(got) != 0 {
		t.Errorf("outsiders raised requests: %q", got)
	}
}

// TestReplacedAfterLookup: a file swapped for another, or for a link,
// while the person is asked is not served; a link reads as a link.
func TestReplacedAfterLookup(t *testing.T) {
	var w *world
	w = newWorld(t, func(_ context.Context, path string) wire.HoldAnswer {
		switch filepath.Base(path) {
		case "swapped.txt":
			_ = os.Remove(path)
			_ = os.WriteFile(path, []byte("other"), 0o644)
		case "linked.txt":
			_ = os.Remove(path)
			_ = os.Symlink("/etc/hostname", path)
		case "renamed.txt":
			_ = os.Rename(filepath.Join(w.root, "decoy.txt"), path)
		}
		return wire.HoldAnswer{Allowed: true, Path: path}
	})
	for _, f := range []string{"swapped.txt", "linked.txt", "renamed.txt", "decoy.txt"} {
		write(t, filepath.Join(w.root, f), "original "+f)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(w.root, "link")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"swapped.txt", "linked.txt", "renamed.txt"} {
		t.Run(f, func(t *testing.T) {
			out, err := w.sandbox(context.Background(), "cat "+filepath.Join(w.root, f))
			if err == nil || !strings.Contains(out, "Permission denied") {
				t.Errorf("served after the swap: err %v, %q", err, out)
			}
		})
	}
	if !strings.Contains(w.said(), "replaced while the person was asked") {
		t.Errorf("no line for the swap: %q", w.said())
	}
	out, err := w.sandbox(context.Background(), "readlink "+filepath.Join(w.root, "link"))
	if err != nil || strings.TrimSpace(out) != "/etc/hostname" {
		t.Errorf("a link inside the root: err %v, %q", err, out)
	}
}

// TestInterruptedWait: a signal to the waiting command ends the ask, and
// the command goes on (here, it dies of it) at once. (SIGTERM: a script's
// background job, as the ordinary user's suites run, ignores SIGINT.)
func TestInterruptedWait(t *testing.T) {
	ended := make(chan struct{})
	w := newWorld(t, func(ctx context.Context, path string) wire.HoldAnswer {
		<-ctx.Done()
		close(ended)
		return wire.HoldAnswer{Line: "interrupted"}
	})
	write(t, filepath.Join(w.root, "report.csv"), "a,b\n")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := w.sandbox(ctx, "cat "+w.root+"/report.csv")
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(w.ask.got()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(w.ask.got()) == 0 {
		t.Fatal("the open was never held")
	}
	if err := exec.Command("pkill", "-TERM", "-f", "^cat "+w.root+"/report.csv$").Run(); err != nil {
		t.Fatalf("pkill: %v", err)
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the ask did not end with the interrupted call")
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the command did not end")
	}
}

// TestUnregistered: a token no longer registered serves nothing.
func TestUnregistered(t *testing.T) {
	w := newWorld(t, allow)
	write(t, filepath.Join(w.root, "report.csv"), "a,b\n")
	w.srv.Unregister(w.token)
	if out, err := w.sandbox(context.Background(), "cat "+w.root+"/report.csv"); err == nil {
		t.Errorf("served after Unregister: %q", out)
	}
}

// TestManySandboxesOneToken: sandboxes one after another under one token
// are each served, though a PID namespace's number is reused once the
// one before it ended (what was remembered of it is not taken for the
// new one).
func TestManySandboxesOneToken(t *testing.T) {
	w := newWorld(t, allow)
	write(t, filepath.Join(w.root, "report.csv"), "a,b\n")
	for i := range 24 {
		if out, err := w.sandbox(context.Background(), "cat "+w.root+"/report.csv"); err != nil || out != "a,b\n" {
			t.Fatalf("sandbox %d: %v %q", i, err, out)
		}
	}
}

// TestMountAfterKill: a process that mounted the file system and was
// killed leaves a dead mount where fusermount3 cannot tell it is dead
// (as an ordinary user it is refused a look at the person's own FUSE
// mount, and leaves it): the next Mount at the same place, the next
// daemon's, clears it and serves.
func TestMountAfterKill(t *testing.T) {
	if dir := os.Getenv("PATHGRANT_HELDFS_MOUNT"); dir != "" {
		if _, err := heldfs.Mount(dir, slog.New(slog.DiscardHandler)); err != nil {
			t.Fatal(err)
		}
		fmt.Println("MOUNTED")
		time.Sleep(time.Minute) // killed before
		return
	}
	if err := heldfs.Available(); err != nil {
		t.Skipf("no FUSE here: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "held")
	cmd := exec.Command(os.Args[0], "-test.run=^TestMountAfterKill$")
	cmd.Env = append(os.Environ(), "PATHGRANT_HELDFS_MOUNT="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "MOUNTED" {
	}
	cmd.Process.Kill()
	cmd.Wait()
	srv, err := heldfs.Mount(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("mount again after the killed one: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(data), " "+dir+" ") {
		t.Errorf("%s is still mounted", dir)
		exec.Command("fusermount3", "-u", "-z", dir).Run()
	}
}
