package sandbox

import "golang.org/x/sys/unix"

// landlockABI asks the kernel for its Landlock ABI version.
func landlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0, errno
	}
	return int(v), nil
}

// seatbeltFacts: there is no Seatbelt on Linux.
func seatbeltFacts() (sandboxExec, developer string) { return "", "" }
