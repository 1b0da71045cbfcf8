package launch

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// Terminals returns the terminal devices open on fds 0-2 of this process
// (as /proc/self/fd shows them), so they can be reopened by name.
func Terminals() []string {
	var out []string
	for fd := range 3 {
		target, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
		if err != nil || strings.HasSuffix(target, " (deleted)") || slices.Contains(out, target) {
			continue
		}
		if strings.HasPrefix(target, "/dev/pts/") || strings.HasPrefix(target, "/dev/tty") {
			out = append(out, target)
		}
	}
	return out
}
