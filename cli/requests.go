package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/sys/unix"

	"pathgrant/apiclient"
	"pathgrant/wire"
)

const pendingUsageText = "usage: pathgrant pending [--json] [--socket PATH]"

// confirmer asks the user to confirm an approval. tty says whether in is
// a terminal, that is whether there is someone to ask; term is that
// terminal, whose echo is turned off while a code is typed (nil: a test's
// reader, with no echo to turn off).
type confirmer struct {
	in   io.Reader
	out  io.Writer // where the question is written
	tty  bool
	term *os.File
}

// newConfirmer asks on in, with the question on out. Only a terminal can
// answer: in anything else (a pipe, a file, a test's reader) nobody is
// there to confirm.
func newConfirmer(in io.Reader, out io.Writer) confirmer {
	f, ok := in.(*os.File)
	if ok && isTerminal(int(f.Fd())) {
		return confirmer{in: in, out: out, tty: true, term: f}
	}
	return confirmer{in: in, out: out}
}

// isTerminal reports whether fd is a terminal.
func isTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, getTermios)
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
	var ue *wire.UnreachableError
	switch {
	case errors.As(err, &ae):
		return err
	case errors.As(err, &ue):
		return ue // wire.NotRunning: names how to start it
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
		return writeJSONArray(stdout, reqs)
	}
	return writeRequestsTable(stdout, reqs, time.Now())
}

func writeRequestsTable(w io.Writer, reqs []wire.Request, now time.Time) error {
	if len(reqs) == 0 {
		_, err := fmt.Fprintln(w, "no pending approval requests")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSESSION\tOP\tPATH\tCOUNT\tWAITING\tAGE\tPURPOSE")
	for _, r := range reqs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.ID, shortID(r.Session), opShown(r.Op), shown(r.Path), r.Count, waiting(r, now),
			age(now.Sub(r.Created)), purposeShown(r.Purpose))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write requests: %w", err)
	}
	return nil
}

// maxPurposeShown bounds the purpose a row of `pathgrant pending` shows;
// --json has it whole.
const maxPurposeShown = 60

// purposeShown is the agent's stated purpose of a request's call as its
// row shows it: printable, one line, cut with an ellipsis; "-" for none.
func purposeShown(p string) string {
	p = wire.Printable(strings.Join(strings.Fields(p), " "))
	if r := []rune(p); len(r) > maxPurposeShown {
		return string(r[:maxPurposeShown-1]) + "…"
	}
	return orDash(p)
}

// opShown is op as a person reads it before its path: a connection's
// "path" is its destination (HOST:PORT), which the command connects to,
// so its row reads "connect to HOST:PORT".
func opShown(op wire.Op) string {
	if op == wire.OpConnect {
		return "connect to"
	}
	return string(op)
}

// shortID is the first 8 characters of an id, enough to tell sessions apart.
func shortID(id string) string {
	if r := []rune(id); len(r) > 8 {
		return string(r[:8])
	}
	return orDash(id)
}

// shown is text an agent chose (a path, a name) as a terminal may print
// it: an escape sequence or a carriage return in it shows as what it is
// and cannot rewrite the screen (wire.Printable).
func shown(s string) string { return wire.Printable(s) }

// waiting says how many calls wait for the decision and for how long yet:
// one clock, the agent's ("2 for 41s"); "-" once none does.
func waiting(r wire.Request, now time.Time) string {
	if r.Waiting == 0 {
		return "-"
	}
	return fmt.Sprintf("%d for %s", r.Waiting, age(r.WaitUntil.Sub(now)))
}

// age is d rounded to whole seconds.
func age(d time.Duration) string {
	return max(d, 0).Truncate(time.Second).String()
}
