package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/wire"
)

// appSummary is app's line in `pathgrant help`.
const appSummary = "show the tray app: the daemon starts it (the default with no command; starts the daemon when none answers)"

// raiseTimeout bounds asking the daemon to show its app: it answers at
// once, or (socket activation) once it has started.
const raiseTimeout = 10 * time.Second

// runApp implements `pathgrant app` and `pathgrant` with no command: it
// asks the daemon to show its app, which the daemon starts itself (never
// this process, whose environment an agent may have set). When no daemon
// answers it becomes the daemon, which starts its app. Without a display
// it serves headless, as before.
func runApp(args []string, stdout, stderr io.Writer) int {
	a, err := parseServeArgs(args)
	if err != nil || a.headless {
		if err == nil {
			err = usagef("app takes no --headless: run 'pathgrant serve --headless'")
		}
		return fail(stderr, "app", err)
	}
	if why := appdirs.DisplayMissing(os.Getenv); why != "" {
		return runWithoutDisplay("app", why, args, stdout, stderr)
	}
	socket := appdirs.SocketOr(a.socket, os.Getenv)
	err = raiseApp(apiclient.New(socket))
	var ue *wire.UnreachableError
	var de *wire.DaemonError
	switch {
	case err == nil:
		fmt.Fprintf(stdout, "pathgrant is already running on %s: its window is shown\n", socket)
		return exitOK
	case errors.As(err, &ue):
		return runServe(args, stdout, stderr)
	case errors.As(err, &de) && de.Status == http.StatusNotFound:
		fmt.Fprintf(stderr, "pathgrant app: the daemon on %s shows no window (%s): %s\n", socket, de.Msg, noWindowFix(de.Msg))
		return exitFail
	}
	fmt.Fprintf(stderr, "pathgrant app: ask the daemon on %s to show its window: %s\n", socket, oneLine(err.Error()))
	return exitFail
}

// noWindowFix says how to get the daemon a window. The daemon takes its
// display from its own environment (under systemd, the user manager's),
// never from whoever asks: a caller's display could be one an agent
// watches.
func noWindowFix(msg string) string {
	if strings.Contains(msg, "no display") {
		return "give the user manager your display ('systemctl --user import-environment DISPLAY XAUTHORITY WAYLAND_DISPLAY', which most desktops do at login) and run 'pathgrant app' again; meanwhile approve with 'pathgrant pending' and 'pathgrant approve'"
	}
	return "approve with 'pathgrant pending' and 'pathgrant approve', or restart it without --headless"
}

// raiseApp asks the daemon to show its inbox (settings when nothing
// waits), starting its app when none runs.
func raiseApp(c *apiclient.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), raiseTimeout)
	defer cancel()
	return c.Raise(ctx, wire.ViewInbox)
}
