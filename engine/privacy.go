package engine

import (
	"slices"
	"strings"
	"syscall"

	"pathgrant/sandbox/launch"
	"pathgrant/tcc"
)

// privacyRefusals explain the refusals of a failed confined command that
// were not pathgrant's: on macOS a path the view showed (outside does not
// name it) that the command was told "Operation not permitted" for, under
// a folder macOS privacy controls guard, was refused by them, and the
// agent and the person are told which setting lets it in. A path outside
// the view, or one refused with another message (a permission bit's
// "Permission denied"), is never put on macOS's account; nor is anything
// when the view is not known (outside is nil).
func privacyRefusals(goos, home string, lines []string, outside func([]string) []string) []string {
	if outside == nil {
		return nil
	}
	var eperm []string
	for _, l := range lines {
		if strings.Contains(strings.ToLower(l), "operation not permitted") {
			eperm = append(eperm, l)
		}
	}
	paths := launch.RefusedPaths(eperm)
	notShown := outside(paths)
	var out []string
	for _, p := range paths {
		if slices.Contains(notShown, p) || len(out) == launch.MaxReported {
			continue
		}
		a := tcc.Access{GOOS: goos, Home: home, Path: p, Err: syscall.EPERM, Allowed: true}
		if line, ok := tcc.Explain(a, ""); ok {
			out = append(out, "pathgrant: "+line)
		}
	}
	return out
}
