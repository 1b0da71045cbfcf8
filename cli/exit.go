package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"pathgrant/appdirs"
)

// Exit statuses every command shares; scripts depend on them. Commands
// that run another program (exec, run) pass its status through besides.
const (
	exitOK    = 0 // done; for check, allow
	exitFail  = 1 // failed or refused; for check, deny
	exitUsage = 2 // usage or input error
)

// usageError marks a usage or input error: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitCode maps a command's error to its exit status: none 0, a usage
// error 2, anything else 1.
func exitCode(err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		return exitUsage
	}
	return exitFail
}

// fail prints err as the one line `pathgrant CMD: ERR` on stderr and
// returns its exit status.
func fail(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "pathgrant %s: %s\n", cmd, oneLine(err.Error()))
	return exitCode(err)
}

// parseFailed answers a command's argument error the one way every
// command does: -h prints the usage on stdout (exit 0); anything else is
// the error's one line on stderr followed by the usage (exit 2 for a
// usage error).
func parseFailed(cmd, usage string, err error, stdout, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stdout, usage)
		return exitOK
	}
	code := fail(stderr, cmd, err)
	fmt.Fprintln(stderr, usage)
	return code
}

// oneLine folds every run of blanks and newlines into one space, so that
// an error is always one line on stderr.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// parseFlags parses flags anywhere among the arguments (so that
// `revoke ID --store P` works) and returns the positional ones; `--` ends
// the flags. A flag error is a usage error; -h is flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%v", err)
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// parseLeading parses the flags that come before a command's own
// arguments (exec, run, mcp: what follows the flags is not pathgrant's to
// read). A flag error is a usage error; -h is flag.ErrHelp.
func parseLeading(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return usagef("%v", err)
	}
	return err
}

// newFlags returns a flag set that reports errors to the caller instead of
// printing them.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// Help texts of the flags several commands share.
const (
	socketHelp = "daemon socket (default $" + appdirs.SocketEnv + ", else the XDG runtime dir)"
	storeHelp  = "store file (default $" + appdirs.StoreEnv + ", else the XDG state dir)"
)

// socketOr returns the --socket flag's value, else the default socket
// (appdirs.Socket): every command that talks to the daemon finds it so.
func socketOr(flagValue string) string {
	return appdirs.SocketOr(flagValue, os.Getenv)
}
