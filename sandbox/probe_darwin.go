package sandbox

import (
	"fmt"
	"os"
	"runtime"

	"pathgrant/wire"
)

// landlockABI: there is no Landlock on macOS.
func landlockABI() (int, error) {
	return 0, fmt.Errorf("no Landlock on %s", runtime.GOOS)
}

// seatbeltFacts finds sandbox-exec (a regular executable file at its one
// place) and the developer folder xcode-select chose.
func seatbeltFacts() (sandboxExec, developer string) {
	if fi, err := os.Stat(wire.SandboxExec); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
		sandboxExec = wire.SandboxExec
	}
	return sandboxExec, DeveloperDir(xcodeSelectLink)
}
