package main

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// forbidTracing makes this process undumpable: no process of the same
// user (an agent's included) may ptrace it, read its memory, where the
// approval codes are, or take its link's descriptors (pidfd_getfd).
func forbidTracing() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("make the app undumpable: %w", err)
	}
	return nil
}
