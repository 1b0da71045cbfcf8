package wire

import "syscall"

// unixSocket makes a stream socket closed on exec. macOS has no
// SOCK_CLOEXEC, so the socket is made and marked under the fork lock,
// which keeps a command that Go starts meanwhile from inheriting it.
func unixSocket() (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return -1, err
	}
	syscall.CloseOnExec(fd)
	return fd, nil
}
