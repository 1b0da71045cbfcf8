package wire

import "syscall"

// unixSocket makes a stream socket that is closed on exec in the same
// call, so no command started meanwhile inherits it.
func unixSocket() (int, error) {
	return syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
}
