package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// uiBinary is the desktop side of pathgrant, the only binary linking Fyne.
const uiBinary = "pathgrant-ui"

// runUI replaces this process with pathgrant-ui for the commands that show
// windows: the tray app (`pathgrant`, `pathgrant app`) and `settings`. The
// CLI stays free of Fyne and starts in a few milliseconds.
func runUI(cmd string) func(args []string, stdout, stderr io.Writer) int {
	return func(args []string, stdout, stderr io.Writer) int {
		bin, err := findUI()
		if err != nil {
			fmt.Fprintf(stderr, "pathgrant %s: %s\n", cmd, oneLine(err.Error()))
			return 1
		}
		argv := append([]string{bin, cmd}, args...)
		err = syscall.Exec(bin, argv, os.Environ())
		fmt.Fprintf(stderr, "pathgrant %s: start %s: %v\n", cmd, bin, err)
		return 1
	}
}

// findUI looks next to this binary first, then on PATH.
func findUI() (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), uiBinary)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath(uiBinary)
	if err != nil {
		return "", errors.New(uiBinary + " is not installed next to pathgrant or on PATH (scripts/run builds it)")
	}
	return p, nil
}
