package hooks_test

import "syscall"

// dieWithParent: macOS has no parent-death signal; a killed shim's child
// runs on until its own end.
func dieWithParent() *syscall.SysProcAttr { return nil }
