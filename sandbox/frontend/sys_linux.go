package frontend

import "golang.org/x/sys/unix"

// getTermios is the ioctl that reads a terminal's settings.
const getTermios = unix.TCGETS

// holdPair is the socket pair a held command's inner step sends its
// seccomp listener over (sequenced packets, close-on-exec).
func holdPair() ([2]int, error) {
	return unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
}
