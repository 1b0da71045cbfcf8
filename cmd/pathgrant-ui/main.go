// Command pathgrant-ui is pathgrant's desktop side: the tray app with the
// daemon inside it, and the settings window. It is the only binary that
// links Fyne; `pathgrant` (no command, `app`, `settings`) starts it, so the
// CLI, `exec` and the hook stay small and start fast.
package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "app"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	socket := fs.String("socket", "", "daemon socket (default $PATHGRANT_SOCKET, else the XDG runtime dir)")
	store := fs.String("store", "", "store file (app only; default $PATHGRANT_STORE, else the XDG state dir)")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "usage: pathgrant [app] [--socket PATH] [--store PATH] | pathgrant settings [--socket PATH]\n")
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	var err error
	switch cmd {
	case "app":
		err = serveApp(*socket, *store, log, stdout, stderr)
	case "settings":
		err = showSettings(*socket, log, stdout)
	default:
		fmt.Fprintf(stderr, "pathgrant-ui: unknown command %q (want app or settings)\n", cmd)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "pathgrant: %s\n", oneLine(err.Error()))
		return 1
	}
	return 0
}

// oneLine folds an error onto one line for stderr.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
