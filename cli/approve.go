package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"pathgrant/apiclient"
	"pathgrant/guard"
	"pathgrant/wire"
)

// The person's decisions from a terminal: approve and deny. Every id may
// be a unique prefix of at least 6 characters (the daemon resolves it).

const (
	approveUsageText = "usage: pathgrant approve ID --scope once|session|device [--for DURATION] [--folder] [--yes] [--socket PATH]\n" +
		"       DURATION limits a session or device grant, such as 15m, 1h or 8h (default: until the session ends, or always)\n" +
		"       the approval code of the choice these flags name is asked for at the terminal (not echoed), or read from standard input"
	denyUsageText = "usage: pathgrant deny ID [--session | --device] [--socket PATH]\n" +
		"       --session: deny the same access from that session at once for the rest of it, without asking again\n" +
		"       --device: deny it to every session on this device, across restarts, until lifted (pathgrant denials lift ID)"
)

// runApprove implements `pathgrant approve`: it asks c for confirmation
// unless --yes, and never approves without one or the other; and it sends
// the approval code of the choice it makes, asked at the terminal without
// echo or read from standard input, never taken from the command line.
func runApprove(args []string, stdout, stderr io.Writer, c confirmer) int {
	return daemonExit("approve", approveUsageText, approve(args, stdout, c), stdout, stderr)
}

// runDeny implements `pathgrant deny`.
func runDeny(args []string, stdout, stderr io.Writer) int {
	return daemonExit("deny", denyUsageText, deny(args, stdout), stdout, stderr)
}

// approveArgs are the parsed arguments of `pathgrant approve`.
type approveArgs struct {
	id, scope, socket string
	lasting           time.Duration
	folder, yes       bool
}

// codeFlagRefused is the refusal of an approval code on the command line.
const codeFlagRefused = "--code is refused: a command line is readable by every process of yours (/proc/PID/cmdline), " +
	"so a code there can be stolen and spent first; leave it out and type the code when asked, or pipe it on standard input"

// codeOnCommandLine reports whether args give an approval code as a flag
// (--code, -code, with = or not), up to a "--" that ends the flags.
func codeOnCommandLine(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "code" {
			return true
		}
	}
	return false
}

func parseApproveArgs(args []string) (approveArgs, error) {
	var a approveArgs
	if codeOnCommandLine(args) {
		return a, usagef("%s", codeFlagRefused)
	}
	fs, socket := newDaemonFlags("approve")
	fs.StringVar(&a.scope, "scope", "", "once, session or device")
	lastingFlag := fs.String("for", "", "how long a session or device grant lasts (15m, 1h, 8h)")
	fs.BoolVar(&a.folder, "folder", false, "grant the folder: the one holding the requested file, or the folder a search asked for")
	fs.BoolVar(&a.yes, "yes", false, "approve without asking for confirmation")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return a, err
	}
	if *lastingFlag != "" {
		if a.lasting, err = time.ParseDuration(*lastingFlag); err != nil {
			return a, usagef("--for %q: want a duration such as 15m, 1h or 8h", *lastingFlag)
		}
	}
	switch {
	case len(pos) != 1:
		return a, usagef("give exactly one request ID (%s)", approveUsageText)
	case a.scope != "once" && a.scope != "session" && a.scope != "device":
		return a, usagef("--scope must be once, session or device, not %q", a.scope)
	case *lastingFlag != "" && a.lasting <= 0:
		return a, usagef("--for must be positive, not %s", a.lasting)
	case a.lasting > 0 && a.scope == "once":
		return a, usagef("--for limits a session or device grant: a once grant serves one call")
	}
	a.id, a.socket = pos[0], socketOr(*socket)
	return a, nil
}

// decision is the approval a asks for, with code.
func (a approveArgs) decision(code string) wire.Decision {
	d := wire.Decision{Scope: a.scope, Code: code}
	if a.lasting > 0 {
		d.For = wire.FormatFor(a.lasting)
	}
	if a.folder {
		d.Kind = guard.KindFolder
	}
	return d
}

func approve(args []string, stdout io.Writer, c confirmer) error {
	a, err := parseApproveArgs(args)
	if err != nil {
		return err
	}
	if !a.yes && !c.tty {
		return usagef("stdin is not a terminal, so nobody can confirm: pass --yes to approve %s", a.id)
	}
	var code string
	if !c.tty {
		// no terminal: the code is the first line of standard input
		if code, err = c.piped(); err != nil {
			return err
		}
	}
	client := apiclient.New(a.socket)
	if !a.yes {
		if err := confirmApproval(client, a, c); err != nil {
			return err
		}
	}
	if c.tty {
		if code, err = c.secret(fmt.Sprintf("Approval code of %s for %s (the prompt window or the daemon's log shows it beside the choice):", codeKey(a), a.id)); err != nil {
			return err
		}
	}
	return decide(client, a.socket, a.id, a.decision(code), stdout)
}

// codeKey names the choice a asks for as the prompt and the log name its
// code (wire.Choice.Key); a --for between two offered durations takes the
// code of the longer.
func codeKey(a approveArgs) string {
	k := a.scope
	if a.folder {
		k += "+folder"
	}
	if a.lasting > 0 {
		k += "+" + wire.FormatFor(a.lasting)
	}
	return k
}

// confirmApproval shows what would be granted and for how long, and asks;
// a no leaves the request pending and is an error.
func confirmApproval(client *apiclient.Client, a approveArgs, c confirmer) error {
	ctx, cancel := context.WithTimeout(context.Background(), daemonCallTimeout)
	defer cancel()
	r, err := client.Request(ctx, a.id)
	if err != nil {
		return daemonError(a.socket, err)
	}
	if r.State != wire.StatePending {
		return fmt.Errorf("approval request %s is already %s", r.ID, r.State)
	}
	fmt.Fprintf(c.out, "Request %s from session %s (agent %s, tool %s)\n", r.ID, r.Session, orDash(shown(r.Agent)), orDash(shown(r.Tool)))
	ok, err := c.ask(fmt.Sprintf("Allow %s %s %s?", opShown(r.Op), grantedPath(r.Suggested, a.folder), lasting(a.scope, a.lasting)))
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("not approved; request %s is still pending", r.ID)
	}
	return nil
}

// grantedPath describes what an approval grants: the suggested path, or
// with folder the folder holding it and everything below.
func grantedPath(s guard.Scope, folder bool) string {
	switch {
	case s.Kind == guard.KindFolder:
		return shown(s.Path) + "/ (the folder and everything in it)"
	case folder:
		return shown(filepath.Dir(s.Path)) + "/ (the folder and everything in it)"
	}
	return shown(s.Path)
}

// lasting says in words how long an approval lasts.
func lasting(scope string, d time.Duration) string {
	switch {
	case scope == "once":
		return "once (one call)"
	case scope == "session" && d > 0:
		return fmt.Sprintf("for %s, or until the session ends", wire.FormatFor(d))
	case scope == "session":
		return "until the session ends"
	case d > 0:
		return fmt.Sprintf("on this device for %s", wire.FormatFor(d))
	}
	return "on this device, always (until you revoke it)"
}

func deny(args []string, stdout io.Writer) error {
	fs, socket := newDaemonFlags("deny")
	remember := fs.Bool("session", false, "deny the same access from that session for the rest of it")
	device := fs.Bool("device", false, "deny the same access to every session on this device until lifted")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 1:
		return usagef("give exactly one request ID (%s)", denyUsageText)
	case *remember && *device:
		return usagef("give --session or --device, not both")
	}
	sock := socketOr(*socket)
	return decide(apiclient.New(sock), sock, pos[0], wire.Decision{Scope: "deny", Remember: *remember || *device, Device: *device}, stdout)
}

// decide sends the decision and prints the request's resulting state.
func decide(client *apiclient.Client, sock, id string, d wire.Decision, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), daemonCallTimeout)
	defer cancel()
	r, err := client.Decide(ctx, id, d)
	if err != nil {
		return daemonError(sock, err)
	}
	fmt.Fprintf(stdout, "%s %s: %s %s", r.ID, r.State, opShown(r.Op), shown(r.Path))
	switch {
	case r.Grant != "":
		fmt.Fprintf(stdout, " (scope %s, grant %s, %s)", r.Scope, r.Grant, lasting(r.Scope, parseLasting(d.For)))
	case d.Device:
		fmt.Fprint(stdout, " (on this device: the same access is denied to every session without asking, until lifted)")
	case d.Remember:
		fmt.Fprint(stdout, " (for the rest of the session: the same access is denied without asking)")
	}
	_, err = fmt.Fprintln(stdout)
	return err
}

// parseLasting reads back a decision's For, which this package wrote.
func parseLasting(s string) time.Duration {
	d, _ := time.ParseDuration(s)
	return d
}
