package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"pathgrant/appdirs"
	"pathgrant/applink"
	"pathgrant/daemon"
	"pathgrant/engine"
	"pathgrant/ipc"
	"pathgrant/wire"
)

const serveUsageText = "usage: pathgrant serve [--headless] [--socket PATH] [--store PATH]"

// serveArgs are the parsed arguments of `pathgrant serve`.
type serveArgs struct {
	headless      bool
	socket, store string
}

// runServe implements `pathgrant serve`: the daemon, until SIGINT or
// SIGTERM. It starts the tray app (pathgrant-ui) as a client of its own
// when there is a display, and again when the app crashes; with
// --headless it never does, and approvals come from the CLI. Exit 0 after
// a clean stop, 1 on failure (another daemon already running included), 2
// usage.
func runServe(args []string, stdout, stderr io.Writer) int {
	a, err := parseServeArgs(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, serveUsageText)
		return 0
	case err != nil:
		return fail(stderr, "serve", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if err := serveDaemon(ctx, a, log, stderr); err != nil {
		fmt.Fprintf(stderr, "pathgrant serve: %s\n", oneLine(err.Error()))
		return exitFail
	}
	return exitOK
}

func parseServeArgs(args []string) (serveArgs, error) {
	var a serveArgs
	fs, socket := newDaemonFlags("serve")
	fs.BoolVar(&a.headless, "headless", false, "never start the app; approve from the CLI")
	fs.StringVar(&a.store, "store", "", storeHelp)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return a, err
	}
	if len(pos) > 0 {
		return a, usagef("unexpected argument %q (%s)", pos[0], serveUsageText)
	}
	a.socket = *socket
	return a, nil
}

// serveDaemon owns the socket and the store until ctx ends, then stops
// the app, shuts the server down and closes the store.
func serveDaemon(ctx context.Context, a serveArgs, log *slog.Logger, stderr io.Writer) error {
	if err := forbidTracing(); err != nil {
		return err
	}
	d, err := daemon.Start(a.socket, a.store, log)
	if err != nil {
		return err
	}
	headless := headlessApprover{log: log, socketArg: socketArg(a.socket, d.Socket)}
	var link *applink.Link
	var approver engine.Approver = headless
	if !a.headless {
		link = newAppLink(d.Socket, headless, log)
		approver = link
	}
	cfg := d.Config(log, approver)
	if link != nil {
		cfg.Raise = link.Start
	}
	srv := ipc.New(cfg)
	if c := ownLogCheck(d.Socket, d.StorePath, d.Home); c.Status == doctorFail {
		log.Warn(c.Detail, "fix", c.Fix)
	}
	mode := "headless"
	if link != nil {
		defer link.Stop()
		link.Attach(srv.Engine(), d.Store)
		if err := link.Start(""); err != nil {
			fmt.Fprintf(stderr, "pathgrant: %s: %s\n", oneLine(noWindowCause(err)), appdirs.HeadlessHint)
		} else {
			mode = "with its app"
		}
		go func() { <-ctx.Done(); link.Stop() }()
	}
	serveErr := d.Serve(srv)
	log.Info("pathgrant daemon ready ("+mode+")", "socket", d.Socket, "store", d.StorePath)
	return d.Stop(ctx, srv, serveErr, log)
}

// newAppLink is the daemon's link to its app: pathgrant-ui beside this
// binary (or on PATH), told of the socket.
func newAppLink(socket string, fallback engine.Approver, log *slog.Logger) *applink.Link {
	bin, err := appdirs.FindBinary(uiBinary, os.Getenv)
	if err != nil {
		bin = "" // Start says the app is missing
	}
	return applink.New(applink.Config{Binary: bin, Socket: socket, Fallback: fallback, Log: log})
}

// noWindowCause is why the daemon has no window, as the person reads it:
// "no display (…)" for the common case.
func noWindowCause(err error) string {
	s := strings.TrimPrefix(err.Error(), engine.ErrNoWindow.Error()+": ")
	return strings.Replace(s, "no display for it", "no display", 1)
}

// socketArg is the --socket argument the approve and deny hints need: none
// when the CLI finds this socket by default.
func socketArg(flagValue, sock string) string {
	if flagValue == "" && os.Getenv(appdirs.SocketEnv) == "" {
		return ""
	}
	return " --socket " + sock
}

// headlessApprover tells the person about approval requests in the
// daemon's own log, once each, with the commands that decide them.
type headlessApprover struct {
	log       *slog.Logger
	socketArg string
}

// Show logs a new approval request: its id, the command that approves
// it, and one code per choice, each named after the flags that ask for it
// (once, session+1h, device+folder), so the person (or a script of theirs
// reading this log) can approve exactly what they choose and no code
// buys more. The command carries no code: `pathgrant approve` asks for it
// (no echo) or reads it from standard input, so it is never in a process's
// command line. It does not block.
func (h headlessApprover) Show(r wire.Request, codes []wire.ChoiceCode) {
	h.log.Info("approval requested", "id", r.ID, "session", r.Session, "op", r.Op, "path", r.Path,
		"approve", fmt.Sprintf("pathgrant approve %s --scope once%s", r.ID, h.socketArg),
		"then", headlessCodeHint,
		"codes", wire.CodesText(codes),
		"deny", fmt.Sprintf("pathgrant deny %s%s", r.ID, h.socketArg))
}

// headlessCodeHint tells the person how to use the codes of the log line.
const headlessCodeHint = "type the code of your choice when it asks (or pipe it on stdin): " +
	"each code approves only the choice it is named after; for another, use --scope session or device, --folder, --for DURATION"

// Withdraw logs that a request was decided or expired.
func (h headlessApprover) Withdraw(id string) {
	h.log.Info("approval request closed", "id", id)
}
