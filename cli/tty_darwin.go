package cli

import "golang.org/x/sys/unix"

// getTermios is the ioctl that reads a terminal's settings, which only a
// terminal answers; setTermios sets them (at once).
const (
	getTermios = unix.TIOCGETA
	setTermios = unix.TIOCSETA
)
