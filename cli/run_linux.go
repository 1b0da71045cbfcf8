package cli

import "golang.org/x/sys/unix"

// becomeSubreaper makes this process the child subreaper of what it
// starts (PR_SET_CHILD_SUBREAPER): a descendant that detaches is
// reparented here, not to init.
func becomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}
