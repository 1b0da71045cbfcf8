package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"pathgrant/appdirs"
	"pathgrant/grants"
	"pathgrant/grantsadmin"
	"pathgrant/guard"
)

const (
	grantsUsageText = "usage: pathgrant grants [list] [--json] [--session S] [--all] [--store PATH] [--socket PATH]\n" +
		"       pathgrant grants revoke (ID | --session S) [--store PATH] [--socket PATH]\n" +
		"       a daemon answering on the socket is used; --store alone works on that file"
	auditUsageText = "usage: pathgrant audit [--since T] [--session S] [--kind K] [--json] [--store PATH] [--socket PATH]\n" +
		"       T is an RFC3339 time or a duration such as 1h (that long ago); K is a kind (refuse, code, deny, ...) or its label (\"wrong code\")"
)

// runGrants implements `pathgrant grants [list]|revoke`, through the
// daemon when one answers, else on the store file directly; with no
// subcommand (nothing, or only flags) it lists. Exit 0 on success, 2 for
// usage or input errors, 1 otherwise.
func runGrants(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (strings.HasPrefix(args[0], "-") && !isHelp(args[0])) {
		return storeExit("grants list", grantsList(args, stdout), stderr)
	}
	switch args[0] {
	case "list":
		return storeExit("grants list", grantsList(args[1:], stdout), stderr)
	case "revoke":
		return storeExit("grants revoke", grantsRevoke(args[1:], stdout), stderr)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, grantsUsageText)
		return 0
	}
	return storeExit("grants", usagef("unknown subcommand %q (want list or revoke)", args[0]), stderr)
}

// runAudit implements `pathgrant audit`: the audit log as text or JSON
// lines, oldest first.
func runAudit(args []string, stdout, stderr io.Writer) int {
	return storeExit("audit", auditPrint(args, stdout), stderr)
}

// storeExit prints err as one line and maps it to the exit status.
func storeExit(cmd string, err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stderr, usageFor(cmd))
		return exitOK
	case exitCode(err) == exitUsage:
		return fail(stderr, cmd, fmt.Errorf("%w (pathgrant %s --help)", err, strings.Fields(cmd)[0]))
	}
	return fail(stderr, cmd, err)
}

func isHelp(arg string) bool { return arg == "help" || arg == "-h" || arg == "--help" }

func usageFor(cmd string) string {
	if strings.HasPrefix(cmd, "audit") {
		return auditUsageText
	}
	return grantsUsageText
}

// storeFlags are where a grants or audit command finds its data.
type storeFlags struct {
	store, socket *string
}

// newStoreFlags returns a flag set with --store and --socket that reports
// errors to the caller instead of printing them.
func newStoreFlags(name string) (*flag.FlagSet, storeFlags) {
	fs := newFlags(name)
	return fs, storeFlags{store: fs.String("store", "", storeHelp), socket: fs.String("socket", "", socketHelp)}
}

// openBackend returns the daemon when one answers, else the store file.
// An explicit --store without --socket names a file, which is then used
// as it is rather than whatever store a daemon holds. With missingOK a
// store that does not exist yet yields (nil, nil): there is nothing to
// show.
func openBackend(f storeFlags, missingOK bool) (grantsadmin.Admin, error) {
	if *f.store == "" || *f.socket != "" {
		if d, ok := grantsadmin.Dial(socketOr(*f.socket)); ok {
			return d, nil
		}
	}
	path, err := appdirs.Store(*f.store, os.Getenv)
	if err != nil {
		return nil, err
	}
	a, err := grantsadmin.Open("", path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && missingOK:
		return nil, nil
	case errors.Is(err, grants.ErrAlreadyRunning) && *f.socket == "":
		if d, ok := grantsadmin.Dial(socketOr("")); ok {
			d.Close()
			return nil, fmt.Errorf("%w; a daemon answers on %s: drop --store, or add --socket, to go through it", err, socketOr(""))
		}
	}
	return a, err
}

func grantsList(args []string, stdout io.Writer) error {
	fs, where := newStoreFlags("grants list")
	asJSON := fs.Bool("json", false, "one JSON object per grant")
	session := fs.String("session", "", "only grants approved in this session")
	all := fs.Bool("all", false, "include ended and expired grants")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	b, err := openBackend(where, true)
	if err != nil || b == nil {
		return err
	}
	defer b.Close()
	gs, err := b.List(grants.Filter{Session: *session, IncludeRevoked: *all, IncludeExpired: *all})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeGrantsJSON(stdout, b, gs)
	}
	return writeGrantsTable(stdout, b, gs)
}

// grantRow is a grant as `grants list --json` prints it: the stored
// fields plus its state now.
type grantRow struct {
	grants.Grant
	State string `json:"state"`
}

func writeGrantsJSON(w io.Writer, b grantsadmin.Admin, gs []grants.Grant) error {
	enc := json.NewEncoder(w)
	for _, g := range gs {
		if err := enc.Encode(grantRow{Grant: g, State: b.State(g)}); err != nil {
			return fmt.Errorf("write grants: %w", err)
		}
	}
	return nil
}

func writeGrantsTable(w io.Writer, b grantsadmin.Admin, gs []grants.Grant) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSCOPE\tOP\tKIND\tSTATE\tUSES\tEXPIRES\tSESSION\tPATH")
	for _, g := range gs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", g.ID, g.Scope, opShown(g.Op), grantKind(g),
			b.State(g), g.UseCount, cliTime(g.Expires), orDash(g.Session), shown(g.Path))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write grants: %w", err)
	}
	return nil
}

// grantKind is whether g is of a file or a folder; "-" for a
// connection's, which names one destination and is of neither.
func grantKind(g grants.Grant) string {
	if g.Op == guard.OpConnect {
		return "-"
	}
	return string(g.Kind)
}

func grantsRevoke(args []string, stdout io.Writer) error {
	fs, where := newStoreFlags("grants revoke")
	session := fs.String("session", "", "revoke every live grant approved in this session")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 1:
		return usagef("unexpected argument %q", pos[1])
	case (len(pos) == 1) == (*session != ""):
		return usagef("give exactly one of a grant ID or --session S")
	}
	b, err := openBackend(where, false)
	if err != nil {
		return err
	}
	defer b.Close()
	if *session != "" {
		n, err := b.RevokeSession(*session)
		if err == nil {
			fmt.Fprintf(stdout, "revoked %s of session %s\n", countOf(n, "grant"), *session)
		}
		return err
	}
	return revokeOne(b, pos[0], stdout)
}

func revokeOne(b grantsadmin.Admin, id string, stdout io.Writer) error {
	err := b.Revoke(id)
	if errors.Is(err, grants.ErrNotFound) {
		return usagef("no grant with id %q", id)
	}
	if err == nil {
		fmt.Fprintf(stdout, "revoked %s\n", id)
	}
	return err
}

func auditPrint(args []string, stdout io.Writer) error {
	fs, where := newStoreFlags("audit")
	since := fs.String("since", "", "only records since T (RFC3339, or a duration such as 1h)")
	session := fs.String("session", "", "only records of this session")
	kind := fs.String("kind", "", "only records of this kind (its name or its label)")
	asJSON := fs.Bool("json", false, "JSON lines")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	from, err := parseSince(*since, time.Now())
	if err != nil {
		return err
	}
	f := grants.AuditFilter{Since: from, Session: *session}
	if *kind != "" {
		if f.Kind, err = grants.ParseKind(*kind); err != nil {
			return usagef("--kind: %v", err)
		}
	}
	b, err := openBackend(where, true)
	if err != nil || b == nil {
		return err
	}
	defer b.Close()
	bw := bufio.NewWriter(stdout)
	if *asJSON {
		enc := json.NewEncoder(bw)
		err = b.EachAudit(f, func(r grants.Record) error { return enc.Encode(r) })
	} else {
		err = writeAuditTable(bw, b, f)
	}
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write audit log: %w", err)
	}
	return nil
}

// parseSince reads --since: an RFC3339 time, or a duration meaning that
// long before now.
func parseSince(v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, usagef("--since %q: want an RFC3339 time or a duration such as 1h", v)
}

func writeAuditTable(w io.Writer, b grantsadmin.Admin, f grants.AuditFilter) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tKIND\tSESSION\tOP\tPATH\tSCOPE\tGRANT\tREASON")
	err := b.EachAudit(f, func(r grants.Record) error {
		_, err := fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cliTime(r.Time), r.Kind.Label(),
			orDash(r.Session), orDash(opShown(r.Op)), orDash(shown(r.Path)), orDash(string(r.Scope)),
			orDash(r.Grant), shown(r.Reason))
		return err
	})
	if err != nil {
		return err
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write audit log: %w", err)
	}
	return nil
}

func cliTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format(time.RFC3339)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// daemonCallTimeout bounds each call to the daemon.
const daemonCallTimeout = 10 * time.Second

// countOf is n and the noun, which takes an s unless n is 1.
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
