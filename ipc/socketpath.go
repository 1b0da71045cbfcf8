package ipc

import (
	"fmt"
	"os"
	"path/filepath"
)

// SocketEnv overrides the socket path, for tests and unusual setups.
const SocketEnv = "PATHGRANT_SOCKET"

// DefaultSocketPath is $PATHGRANT_SOCKET, else $XDG_RUNTIME_DIR/pathgrant.sock
// (a per-user tmpfs the session manager creates 0700), else
// /tmp/pathgrant-$UID/pathgrant.sock in a folder Listen creates 0700.
func DefaultSocketPath() string {
	if p := os.Getenv(SocketEnv); p != "" {
		return p
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "pathgrant.sock")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("pathgrant-%d", os.Getuid()), "pathgrant.sock")
}
