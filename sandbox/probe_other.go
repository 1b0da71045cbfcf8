//go:build !linux && !darwin

package sandbox

import (
	"fmt"
	"runtime"
)

// landlockABI: there is no Landlock off Linux.
func landlockABI() (int, error) {
	return 0, fmt.Errorf("no Landlock on %s", runtime.GOOS)
}

// seatbeltFacts: there is no Seatbelt here.
func seatbeltFacts() (sandboxExec, developer string) { return "", "" }
