package hooks_test

import "syscall"

// dieWithParent has the kernel kill the shim's child when the shim dies.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
