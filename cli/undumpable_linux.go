package cli

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// forbidTracing makes the daemon undumpable: it holds every approval code
// and the socket agents' calls arrive on, so no process of the same user
// may trace it, read its memory or take its listener (pidfd_getfd). An
// execute-only binary (the package's) makes it so from exec on; this
// covers a daemon built from source.
func forbidTracing() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("make the daemon undumpable: %w", err)
	}
	return nil
}
