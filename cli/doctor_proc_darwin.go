package cli

import "errors"

// errNoProcFiles is doctor's answer on macOS, which has no /proc: where
// the daemon's stderr goes (the approval codes of a headless daemon), and
// the folders its environment chose, are not checked rather than guessed
// from doctor's own.
var errNoProcFiles = errors.New("not available on macOS: there is no /proc to read another process's command line, environment and open files from")

func procFiles() error { return errNoProcFiles }
