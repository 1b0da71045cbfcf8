package cli

import "golang.org/x/sys/unix"

// getTermios is the ioctl that reads a terminal's settings, which only a
// terminal answers.
const getTermios = unix.TCGETS
