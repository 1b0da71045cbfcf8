package ipc

import "syscall"

// privateBeforeBind does nothing on macOS, whose sockets take no mode
// before bind: the socket folder is private (checkSocketDir), and the
// socket is chmod'ed 0600 right after.
func privateBeforeBind(_, _ string, _ syscall.RawConn) error { return nil }
