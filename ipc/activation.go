package ipc

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// The variables a supervisor (systemd's socket activation) sets when it
// hands a process listening sockets, and the first descriptor it hands:
// sd_listen_fds(3)'s contract.
const (
	listenPIDEnv     = "LISTEN_PID"
	listenFDsEnv     = "LISTEN_FDS"
	listenFDNamesEnv = "LISTEN_FDNAMES"
	listenFDsStart   = 3
)

// ErrNotHandedOver means no supervisor handed this process a listener: the
// caller binds the socket itself.
var ErrNotHandedOver = errors.New("no listener handed over")

// Inherited takes the listener a supervisor handed this process, for the
// socket at path. It is handed over when LISTEN_PID is this process's pid
// and LISTEN_FDS is at least 1; else ErrNotHandedOver, and LISTEN_PID of
// another process (a parent's variables leaking down) is ignored. The
// variables are unset either way, so no child ever sees them. Descriptor
// 3 must be a listening Unix stream socket bound to exactly path, in a
// folder ListenAt would accept, its file 0600 at most and this user's:
// anything else is refused, never served. The listener keeps its socket
// file on close (the supervisor owns it) and gets the daemon's backlog.
func Inherited(path string) (net.Listener, error) {
	n, err := handedOver()
	if err != nil {
		return nil, err
	}
	for fd := listenFDsStart + 1; fd < listenFDsStart+n; fd++ {
		syscall.CloseOnExec(fd) // never served, never passed on
	}
	ln, err := takeListener(listenFDsStart, path)
	if err != nil {
		return nil, fmt.Errorf("socket handed over by the supervisor (LISTEN_FDS): %w", err)
	}
	return ln, nil
}

// handedOver reads and unsets the activation variables and returns how
// many descriptors were handed to this process.
func handedOver() (int, error) {
	pid, fds := os.Getenv(listenPIDEnv), os.Getenv(listenFDsEnv)
	for _, v := range []string{listenPIDEnv, listenFDsEnv, listenFDNamesEnv} {
		os.Unsetenv(v)
	}
	if pid == "" || pid != strconv.Itoa(os.Getpid()) {
		return 0, ErrNotHandedOver
	}
	n, err := strconv.Atoi(fds)
	if err != nil || n < 1 {
		return 0, ErrNotHandedOver
	}
	return n, nil
}

// takeListener checks that fd is the daemon's socket at path, then makes
// it a listener.
func takeListener(fd int, path string) (net.Listener, error) {
	if err := checkHanded(fd, path); err != nil {
		return nil, err
	}
	syscall.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), "pathgrant.sock")
	ln, err := net.FileListener(f)
	f.Close() // FileListener holds its own duplicate
	if err != nil {
		return nil, fmt.Errorf("descriptor %d: %w", fd, err)
	}
	ul, ok := ln.(*net.UnixListener)
	if !ok {
		ln.Close()
		return nil, fmt.Errorf("descriptor %d is not a Unix socket listener", fd)
	}
	ul.SetUnlinkOnClose(false)
	if err := setBacklog(ul, listenBacklog); err != nil {
		ul.Close()
		return nil, err
	}
	return ul, nil
}

// checkHanded refuses a descriptor that is not a listening Unix stream
// socket bound to path, and a path whose folder or file another user
// could reach.
func checkHanded(fd int, path string) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("descriptor %d: %w", fd, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return fmt.Errorf("descriptor %d is not a socket", fd)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return fmt.Errorf("descriptor %d: %w", fd, err)
	}
	unix, ok := sa.(*syscall.SockaddrUnix)
	if !ok {
		return fmt.Errorf("descriptor %d is not a Unix socket", fd)
	}
	if typ, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TYPE); err != nil || typ != syscall.SOCK_STREAM {
		return fmt.Errorf("descriptor %d is not a stream socket (type %d, %v): pathgrant's socket is ListenStream", fd, typ, err)
	}
	if on, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ACCEPTCONN); err != nil || on == 0 {
		return fmt.Errorf("descriptor %d is not listening (%v)", fd, err)
	}
	if unix.Name == "" || filepath.Clean(unix.Name) != filepath.Clean(path) {
		return fmt.Errorf("socket is bound to %q, not to pathgrant's socket %s: refused", unix.Name, path)
	}
	if err := checkSocketDir(filepath.Dir(path)); err != nil {
		return err
	}
	return checkSocketFile(path)
}

// checkSocketFile refuses a socket file of another user's, or one that
// others may connect to.
func checkSocketFile(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("socket %s: %w", path, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&os.ModeSocket == 0:
		return fmt.Errorf("socket path %s is not a socket", path)
	case ok && int(st.Uid) != os.Getuid():
		return fmt.Errorf("socket %s belongs to uid %d, not to you", path, st.Uid)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("socket %s has mode %04o; it must be 0600 (SocketMode=0600)", path, fi.Mode().Perm())
	}
	return nil
}
