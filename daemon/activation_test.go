package daemon

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/ipc"
	"pathgrant/wire"
)

// activationChildEnv, set to the socket path, makes the test binary the
// daemon of TestActivationChild.
const activationChildEnv = "PATHGRANT_TEST_ACTIVATION_SOCKET"

// TestActivationChild is the daemon a supervisor starts: it is skipped
// unless TestSocketActivation runs it. It prints "refused: ERR" when
// Start fails, else "serving LISTEN_PID=..." (what its children would
// see), then serves until its stdin closes.
func TestActivationChild(t *testing.T) {
	sock := os.Getenv(activationChildEnv)
	if sock == "" {
		t.Skip("the daemon of TestSocketActivation, run by it")
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	d, err := Start(sock, filepath.Join(filepath.Dir(sock), "..", "state", "pathgrant.db"), log)
	if err != nil {
		fmt.Printf("refused: %v\n", oneLine(err.Error()))
		return
	}
	srv := ipc.New(d.Config(log, nil))
	serveErr := d.Serve(srv)
	fmt.Printf("serving LISTEN_PID=%q LISTEN_FDS=%q\n", os.Getenv("LISTEN_PID"), os.Getenv("LISTEN_FDS"))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { io.Copy(io.Discard, os.Stdin); cancel() }()
	if err := d.Stop(ctx, srv, serveErr, log); err != nil {
		t.Fatal(err)
	}
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// TestSocketActivation hands the daemon, as a supervisor does, a socket
// at descriptor 3 with LISTEN_FDS=1 and LISTEN_PID set by the shell to the
// daemon's own pid: pathgrant's listening socket is served (a session
// registers through the same accept path and peer checks) and kept on
// disk when the daemon stops; anything else is refused with one clear
// error; a LISTEN_PID of another process is ignored and the daemon binds
// the socket itself.
func TestSocketActivation(t *testing.T) {
	tests := []struct {
		name      string
		handed    func(t *testing.T, sock string) *os.File
		otherPID  bool   // LISTEN_PID names the test, not the daemon
		dirMode   uint32 // the socket folder's mode (0700 when 0)
		refused   string // the refusal's words; "" when served
		keepsFile bool   // the socket file outlives the daemon
	}{
		{name: "pathgrant's listening socket is served", handed: listening(""), keepsFile: true},
		{name: "a socket bound elsewhere is refused", handed: listening("other.sock"), refused: "not to pathgrant's socket"},
		{name: "a datagram socket is refused", handed: datagram, refused: "not a stream socket"},
		{name: "a socket not listening is refused", handed: notListening, refused: "is not listening"},
		{name: "a socket others may connect to is refused", handed: chmodded(0o666), refused: "must be 0600"},
		{name: "a socket in a folder others may enter is refused", handed: listening(""), dirMode: 0o755, refused: "has mode 0755"},
		{name: "LISTEN_PID of another process is ignored", handed: listening("other.sock"), otherPID: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			run := filepath.Join(root, "run")
			mode := tt.dirMode
			if mode == 0 {
				mode = 0o700
			}
			if err := os.Mkdir(run, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(run, os.FileMode(mode)); err != nil {
				t.Fatal(err)
			}
			sock := filepath.Join(run, "pathgrant.sock")
			handed := tt.handed(t, sock)
			out, stop := startActivated(t, root, sock, handed, tt.otherPID)
			line := readLine(t, out)
			if tt.refused != "" {
				if !strings.HasPrefix(line, "refused: ") || !strings.Contains(line, tt.refused) {
					t.Fatalf("daemon said %q, want a refusal naming %q", line, tt.refused)
				}
				stop()
				return
			}
			if line != `serving LISTEN_PID="" LISTEN_FDS=""` {
				t.Fatalf("daemon said %q, want it serving with the activation variables unset", line)
			}
			registers(t, root, sock)
			stop()
			_, err = os.Lstat(sock)
			if kept := err == nil; kept != tt.keepsFile {
				t.Errorf("socket file kept after the daemon stopped: %v (%v), want %v", kept, err, tt.keepsFile)
			}
		})
	}
}

// startActivated starts the test binary as the daemon on sock, handed
// the descriptor as a supervisor hands it. It returns the daemon's
// stdout and a stop that closes its stdin and waits for it.
func startActivated(t *testing.T, root, sock string, handed *os.File, otherPID bool) (*bufio.Reader, func()) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{exe, "-test.run=^TestActivationChild$", "-test.v=false"}
	env := append(os.Environ(), activationChildEnv+"="+sock, "LISTEN_FDS=1",
		"HOME="+root+"/home", "XDG_CONFIG_HOME="+root+"/config", "XDG_RUNTIME_DIR="+root+"/xdg-run")
	cmd := exec.Command("sh", append([]string{"-c", `LISTEN_PID=$$ exec "$@"`, "sh"}, argv...)...)
	if otherPID {
		cmd = exec.Command(argv[0], argv[1:]...)
		env = append(env, "LISTEN_PID="+strconv.Itoa(os.Getpid()))
	}
	cmd.Env, cmd.ExtraFiles, cmd.Stderr = env, []*os.File{handed}, os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	// A pipe of the test's own, not StdoutPipe: Wait closes that one as
	// soon as the daemon exits, which a daemon that refuses and exits at
	// once does before its line is read.
	stdout, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdout.Close() })
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	handed.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		stdin.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("daemon: %v", err)
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Errorf("daemon did not stop")
		}
	}
	t.Cleanup(stop)
	return bufio.NewReader(stdout), stop
}

// readLine is the daemon's first line of its own (the test binary's
// lines skipped), within a deadline.
func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	lines := make(chan string, 1)
	go func() {
		for {
			s, err := r.ReadString('\n')
			if s = strings.TrimSpace(s); strings.HasPrefix(s, "refused: ") || strings.HasPrefix(s, "serving ") {
				lines <- s
				return
			}
			if err != nil {
				lines <- "no line: " + err.Error()
				return
			}
		}
	}()
	select {
	case s := <-lines:
		return s
	case <-time.After(30 * time.Second):
		t.Fatal("the daemon said nothing in 30s")
		return ""
	}
}

// registers registers a session through the daemon on sock: the whole
// accept path, peer credentials included.
func registers(t *testing.T, root, sock string) {
	t.Helper()
	work := root + "/home/work"
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := apiclient.New(sock).Register(ctx, wire.SessionRequest{Agent: "a", Cwd: work, Workspace: []string{work}}); err != nil {
		t.Fatalf("register through the handed socket: %v", err)
	}
}

// listening is a listening stream socket at name in the socket's folder
// ("": the socket's own path), 0600, kept on disk when closed.
func listening(name string) func(t *testing.T, sock string) *os.File {
	return func(t *testing.T, sock string) *os.File {
		path := sock
		if name != "" {
			path = filepath.Join(filepath.Dir(sock), name)
		}
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o600); err != nil {
			t.Fatal(err)
		}
		ul := ln.(*net.UnixListener)
		ul.SetUnlinkOnClose(false)
		f, err := ul.File()
		if err != nil {
			t.Fatal(err)
		}
		ul.Close()
		return f
	}
}

// chmodded is pathgrant's listening socket with its file's mode set.
func chmodded(mode os.FileMode) func(t *testing.T, sock string) *os.File {
	return func(t *testing.T, sock string) *os.File {
		f := listening("")(t, sock)
		if err := os.Chmod(sock, mode); err != nil {
			t.Fatal(err)
		}
		return f
	}
}

func datagram(t *testing.T, sock string) *os.File {
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sock, 0o600)
	f, err := c.File()
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	return f
}

func notListening(t *testing.T, sock string) *os.File {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	os.Chmod(sock, 0o600)
	return os.NewFile(uintptr(fd), sock)
}
