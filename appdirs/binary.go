package appdirs

import (
	"fmt"
	"os"
	"path/filepath"
)

// FindBinary returns the absolute path of pathgrant's binary name: the one
// next to the running binary (pathgrant, pathgrant-ui and pathgrant-hook
// are installed side by side), else the first one in an absolute $PATH
// entry. A relative $PATH entry is skipped: what it finds would depend on
// the caller's working directory.
func FindBinary(name string, getenv Getenv) (string, error) {
	dirs := filepath.SplitList(getenv("PATH"))
	if self, err := os.Executable(); err == nil {
		dirs = append([]string{filepath.Dir(self)}, dirs...)
	}
	for _, dir := range dirs {
		if !filepath.IsAbs(dir) {
			continue
		}
		bin := filepath.Join(dir, name)
		if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return bin, nil
		}
	}
	return "", fmt.Errorf("%s is not installed next to this binary or on $PATH (scripts/run builds it)", name)
}

// HeadlessHint is what pathgrant says when it serves without a display:
// how the person approves instead.
const HeadlessHint = "running the daemon headless; approve from the CLI with 'pathgrant pending' and 'pathgrant approve ID --scope once|session|device', which asks for the code of that choice (each is on the daemon's log line for the request)"
