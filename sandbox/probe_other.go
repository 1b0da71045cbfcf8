//go:build !linux

package sandbox

import (
	"fmt"
	"runtime"
)

// landlockABI: there is no Landlock off Linux.
func landlockABI() (int, error) {
	return 0, fmt.Errorf("no Landlock on %s", runtime.GOOS)
}
