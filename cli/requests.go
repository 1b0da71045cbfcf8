package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/sys/unix"

	"pathgrant/apiclient"
	"pathgrant/guard"
	"pathgrant/wire"
)

const (
	pendingUsageText = "usage: pathgrant pending [--json] [--socket PATH]"
	approveUsageText = "usage: pathgrant approve ID --scope once|session|device [--folder] [--code CODE] [--yes] [--socket PATH]"
	denyUsageText    = "usage: pathgrant deny ID [--socket PATH]"
)

// confirmer asks the user to confirm an approval. tty says whether in is
// a terminal, that is whether there is someone to ask.
type confirmer struct {
	in  io.Reader
	out io.Writer // where the question is written
	tty bool
}

// newConfirmer asks on in, with the question on out. Only a terminal can
// answer: in anything else (a pipe, a file, a test's reader) nobody is
// there to confirm.
func newConfirmer(in io.Reader, out io.Writer) confirmer {
	f, ok := in.(*os.File)
	return confirmer{in: in, out: out, tty: ok && isTerminal(int(f.Fd()))}
}

// isTerminal reports whether fd is a terminal.
func isTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}

// ask writes the question and reads one line: only y or yes agree;
// anything else, end of input included, declines.
func (c confirmer) ask(question string) (bool, error) {
	fmt.Fprintf(c.out, "%s [y/N] ", question)
	line, err := c.readLine()
	if err != nil {
		return false, err
	}
	switch strings.ToLower(line) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// line writes the prompt and reads one line, trimmed; an empty answer is
// an error.
func (c confirmer) line(prompt string) (string, error) {
	fmt.Fprintf(c.out, "%s ", prompt)
	line, err := c.readLine()
	if err != nil {
		return "", err
	}
	if line == "" {
		return "", errors.New("no approval code given; nothing approved")
	}
	return line, nil
}

// readLine reads one line from in, byte by byte so that nothing after it
// is consumed: the next question reads the next line.
func (c confirmer) readLine() (string, error) {
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := c.in.Read(buf)
		if n == 1 && buf[0] == '\n' {
			break
		}
		if n == 1 {
			b.WriteByte(buf[0])
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("read the answer: %w", err)
		}
	}
	return strings.TrimSpace(b.String()), nil
}

// runPending implements `pathgrant pending`: the approval requests waiting
// in the daemon, as a table or (--json) one JSON array.
func runPending(args []string, stdout, stderr io.Writer) int {
	return daemonExit("pending", pendingUsageText, pending(args, stdout), stdout, stderr)
}

// runApprove implements `pathgrant approve`: it asks c for confirmation
// unless --yes, and never approves without one or the other; and it sends
// the request's approval code, from --code or asked at the terminal.
func runApprove(args []string, stdout, stderr io.Writer, c confirmer) int {
	return daemonExit("approve", approveUsageText, approve(args, stdout, c), stdout, stderr)
}

// runDeny implements `pathgrant deny`.
func runDeny(args []string, stdout, stderr io.Writer) int {
	return daemonExit("deny", denyUsageText, deny(args, stdout), stdout, stderr)
}

// daemonExit prints err as one line and maps it to the exit status: 0
// done, 2 usage (or approval without confirmation), 1 anything else.
func daemonExit(cmd, usageText string, err error, stdout, stderr io.Writer) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, usageText)
		return exitOK
	}
	return fail(stderr, cmd, err)
}

// newDaemonFlags returns a flag set with --socket that reports errors to
// the caller instead of printing them.
func newDaemonFlags(name string) (*flag.FlagSet, *string) {
	fs := newFlags(name)
	return fs, fs.String("socket", "", socketHelp)
}

// daemonError says why a call to the daemon at sock failed: the daemon's
// own refusal, or that nothing answers there.
func daemonError(sock string, err error) error {
	var ae *wire.DaemonError
	var op *net.OpError
	switch {
	case errors.As(err, &ae):
		return err
	case errors.As(err, &op) && op.Op == "dial":
		return fmt.Errorf("no daemon answers on %s: %w (start one with 'pathgrant serve --headless')", sock, op.Err)
	}
	return fmt.Errorf("daemon on %s: %w", sock, err)
}

func pending(args []string, stdout io.Writer) error {
	fs, socket := newDaemonFlags("pending")
	asJSON := fs.Bool("json", false, "one JSON array of requests")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	sock := socketOr(*socket)
	ctx, cancel := context.WithTimeout(context.Background(), daemonCallTimeout)
	defer cancel()
	reqs, err := apiclient.New(sock).Pending(ctx)
	if err != nil {
		return daemonError(sock, err)
	}
	if *asJSON {
		return writeRequestsJSON(stdout, reqs)
	}
	return writeRequestsTable(stdout, reqs, time.Now())
}

func writeRequestsJSON(w io.Writer, reqs []wire.Request) error {
	if reqs == nil {
		reqs = []wire.Request{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(reqs); err != nil {
		return fmt.Errorf("write requests: %w", err)
	}
	return nil
}

func writeRequestsTable(w io.Writer, reqs []wire.Request, now time.Time) error {
	if len(reqs) == 0 {
		_, err := fmt.Fprintln(w, "no pending approval requests")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSESSION\tOP\tPATH\tCOUNT\tAGE")
	for _, r := range reqs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", r.ID, shortID(r.Session), r.Op, r.Path, r.Count, age(now.Sub(r.Created)))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write requests: %w", err)
	}
	return nil
}

// shortID is the first 8 characters of an id, enough to tell sessions apart.
func shortID(id string) string {
	if r := []rune(id); len(r) > 8 {
		return string(r[:8])
	}
	return orDash(id)
}

// age is d rounded to whole seconds.
func age(d time.Duration) string {
	return max(d, 0).Truncate(time.Second).String()
}

// approveArgs are the parsed arguments of `pathgrant approve`.
type approveArgs struct {
	id, scope, socket, code string
	folder, yes             bool
}

func parseApproveArgs(args []string) (approveArgs, error) {
	var a approveArgs
	fs, socket := newDaemonFlags("approve")
	fs.StringVar(&a.scope, "scope", "", "once, session or device")
	fs.BoolVar(&a.folder, "folder", false, "grant the folder holding the requested file")
	fs.BoolVar(&a.yes, "yes", false, "approve without asking for confirmation")
	fs.StringVar(&a.code, "code", "", "the request's approval code, from the prompt window or the daemon's log line")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return a, err
	}
	switch {
	case len(pos) != 1:
		return a, usagef("give exactly one request ID (%s)", approveUsageText)
	case a.scope != "once" && a.scope != "session" && a.scope != "device":
		return a, usagef("--scope must be once, session or device, not %q", a.scope)
	}
	a.id, a.socket = pos[0], socketOr(*socket)
	return a, nil
}

func approve(args []string, stdout io.Writer, c confirmer) error {
	a, err := parseApproveArgs(args)
	if err != nil {
		return err
	}
	if !a.yes && !c.tty {
		return usagef("stdin is not a terminal, so nobody can confirm: pass --yes to approve %s", a.id)
	}
	if a.code == "" && !c.tty {
		return usagef("pass --code CODE to approve %s: its approval code is in the prompt window or the daemon's log line for it", a.id)
	}
	client := apiclient.New(a.socket)
	if !a.yes {
		if err := confirmApproval(client, a, c); err != nil {
			return err
		}
	}
	if a.code == "" {
		if a.code, err = c.line(fmt.Sprintf("Approval code for %s (shown in the prompt window or the daemon's log):", a.id)); err != nil {
			return err
		}
	}
	d := wire.Decision{Scope: a.scope, Code: a.code}
	if a.folder {
		d.Kind = guard.KindFolder
	}
	return decide(client, a.socket, a.id, d, stdout)
}

// confirmApproval shows what would be granted and asks; a no leaves the
// request pending and is an error.
func confirmApproval(client *apiclient.Client, a approveArgs, c confirmer) error {
	ctx, cancel := context.WithTimeout(context.Background(), daemonCallTimeout)
	defer cancel()
	r, err := client.Request(ctx, a.id)
	if err != nil {
		return daemonError(a.socket, err)
	}
	if r.State != wire.StatePending {
		return fmt.Errorf("approval request %s is already %s", a.id, r.State)
	}
	fmt.Fprintf(c.out, "Request %s from session %s (agent %s, tool %s)\n", r.ID, r.Session, orDash(r.Agent), orDash(r.Tool))
	ok, err := c.ask(fmt.Sprintf("Allow %s %s for %s?", r.Op, grantedPath(r.Suggested, a.folder), a.scope))
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("not approved; request %s is still pending", a.id)
	}
	return nil
}

// grantedPath describes what an approval grants: the suggested path, or
// with folder the folder holding it and everything below.
func grantedPath(s guard.Scope, folder bool) string {
	switch {
	case s.Kind == guard.KindFolder:
		return s.Path + "/ (the folder and everything in it)"
	case folder:
		return filepath.Dir(s.Path) + "/ (the folder and everything in it)"
	}
	return s.Path
}

func deny(args []string, stdout io.Writer) error {
	fs, socket := newDaemonFlags("deny")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("give exactly one request ID (%s)", denyUsageText)
	}
	sock := socketOr(*socket)
	return decide(apiclient.New(sock), sock, pos[0], wire.Decision{Scope: "deny"}, stdout)
}

// decide sends the decision and prints the request's resulting state.
func decide(client *apiclient.Client, sock, id string, d wire.Decision, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), daemonCallTimeout)
	defer cancel()
	r, err := client.Decide(ctx, id, d)
	if err != nil {
		return daemonError(sock, err)
	}
	fmt.Fprintf(stdout, "%s %s: %s %s", r.ID, r.State, r.Op, r.Path)
	if r.Grant != "" {
		fmt.Fprintf(stdout, " (scope %s, grant %s)", r.Scope, r.Grant)
	}
	_, err = fmt.Fprintln(stdout)
	return err
}
