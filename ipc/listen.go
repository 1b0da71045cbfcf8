package ipc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrAlreadyRunning means a live daemon answers on the socket.
var ErrAlreadyRunning = errors.New("pathgrant is already running")

// Listen opens the daemon's socket at path. The folder is created 0700 and
// must belong to this user with no access for others; the socket is 0600,
// from the moment it is bound where the system allows (privateBeforeBind)
// and chmod'ed after in any case. Never through the umask: it is the
// whole process's, so every file, folder and child process another
// goroutine made meanwhile would have taken it (a folder made 0600, that
// nobody can enter).
// A socket file left by a crashed daemon (nobody accepts on it) is replaced;
// a live one is ErrAlreadyRunning, so two daemons never share one path.
func Listen(path string) (net.Listener, error) {
	if err := prepareSocketDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if err := clearStale(path); err != nil {
		return nil, err
	}
	lc := net.ListenConfig{Control: privateBeforeBind}
	ln, err := lc.Listen(context.Background(), "unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := setBacklog(ln.(*net.UnixListener), listenBacklog); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	return ln, nil
}

// listenBacklog is how many connections may wait in the kernel for the
// daemon to accept them; the next connect() is refused with EAGAIN (or,
// on a blocking socket such as the hook's, waits until there is room).
// Go would use net.core.somaxconn, 4096 on current kernels; under a flood
// of connections that queue stays full, and every new client waits behind
// all of it (about 250 ms on a 2-core machine). Kept short, a flood waits
// in connect() instead, and a new client is accepted within a few ms.
const listenBacklog = 64

// setBacklog sets the socket's accept queue length: listen() again on a
// listening socket only changes its backlog.
func setBacklog(ln *net.UnixListener, n int) error {
	raw, err := ln.SyscallConn()
	if err != nil {
		return fmt.Errorf("backlog: %w", err)
	}
	var lerr error
	if err := raw.Control(func(fd uintptr) { lerr = syscall.Listen(int(fd), n) }); err != nil {
		return fmt.Errorf("backlog: %w", err)
	}
	if lerr != nil {
		return fmt.Errorf("backlog: %w", lerr)
	}
	return nil
}

func prepareSocketDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("socket folder %s: %w", dir, err)
	}
	return checkSocketDir(dir)
}

// checkSocketDir refuses a socket folder that is not this user's, or that
// others may enter (but $XDG_RUNTIME_DIR itself).
func checkSocketDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket folder %s: %w", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("socket folder %s is not a directory", dir)
	case ok && int(st.Uid) != os.Getuid():
		return fmt.Errorf("socket folder %s belongs to uid %d, not to you", dir, st.Uid)
	case fi.Mode().Perm()&0o077 != 0 && !isRuntimeDir(dir):
		return fmt.Errorf("socket folder %s has mode %04o; it must be 0700 (chmod 700 %s)", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// isRuntimeDir allows a socket directly in $XDG_RUNTIME_DIR, whose mode the
// session manager owns.
func isRuntimeDir(dir string) bool {
	rt := os.Getenv("XDG_RUNTIME_DIR")
	return rt != "" && filepath.Clean(rt) == filepath.Clean(dir)
}

// clearStale removes a socket file nobody listens on. Anything that is not
// a socket is left alone: that is not ours to delete.
func clearStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("socket %s: %w", path, err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("socket path %s exists and is not a socket; move it aside", path)
	}
	conn, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		conn.Close()
		return fmt.Errorf("%w (socket %s)", ErrAlreadyRunning, path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("socket %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove stale socket %s: %w", path, err)
	}
	return nil
}
