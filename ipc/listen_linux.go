package ipc

import (
	"fmt"
	"syscall"
)

// privateBeforeBind makes the unbound socket 0600: Linux creates the
// socket file with the socket's own mode (less the umask), so nobody
// else can connect even between bind and the chmod after it, in a
// folder others may enter ($XDG_RUNTIME_DIR itself).
func privateBeforeBind(_, _ string, c syscall.RawConn) error {
	var ferr error
	if err := c.Control(func(fd uintptr) { ferr = syscall.Fchmod(int(fd), 0o600) }); err != nil {
		return fmt.Errorf("socket mode: %w", err)
	}
	if ferr != nil {
		return fmt.Errorf("socket mode: %w", ferr)
	}
	return nil
}
