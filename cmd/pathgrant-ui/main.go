// Command pathgrant-ui is pathgrant's desktop side: the tray app the
// daemon starts (`app --link`), and the settings window a headless
// daemon's person opens (`settings`). It is the only binary that links
// Fyne; `pathgrant app` and `pathgrant settings` reach it, so the CLI,
// `exec` and the hook stay small and start fast.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"pathgrant/appdirs"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = "usage: pathgrant-ui app --link (started by the daemon) | pathgrant-ui settings [--socket PATH]"

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	cmd, args := args[0], args[1:]
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	socket := fs.String("socket", "", "daemon socket (settings; default $PATHGRANT_SOCKET, else the XDG runtime dir)")
	link := fs.Bool("link", false, "run as the app the daemon started, on the link it handed down")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	var err error
	switch {
	case cmd == "app" && *link:
		err = serveApp(log)
	case cmd == "app":
		err = errors.New("the app is started by the pathgrant daemon: run 'pathgrant app'")
	case cmd == "settings":
		err = showSettings(*socket, log, stdout)
	default:
		fmt.Fprintf(stderr, "pathgrant-ui: unknown command %q (want app or settings)\n", cmd)
		return 2
	}
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		// the daemon goes on headless: say how to approve meanwhile
		fmt.Fprintf(stderr, "pathgrant: %s: %s\n", oneLine(err.Error()), appdirs.HeadlessHint)
		return ee.code
	case err != nil:
		fmt.Fprintf(stderr, "pathgrant: %s\n", oneLine(err.Error()))
		return 1
	}
	return 0
}

// oneLine folds an error onto one line for stderr.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
