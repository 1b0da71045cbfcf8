package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"text/tabwriter"
	"time"

	"pathgrant/grants"
)

const (
	grantsUsageText = "usage: pathgrant grants list [--json] [--session S] [--all] [--store PATH]\n" +
		"       pathgrant grants revoke (ID | --session S) [--store PATH]"
	auditUsageText = "usage: pathgrant audit [--since T] [--session S] [--json] [--store PATH]\n" +
		"       T is an RFC3339 time or a duration such as 1h (that long ago)"
)

// storeUsageError marks a usage or input error: exit status 2.
type storeUsageError struct{ msg string }

func (e *storeUsageError) Error() string { return e.msg }

func storeUsagef(format string, args ...any) error {
	return &storeUsageError{msg: fmt.Sprintf(format, args...)}
}

// runGrants implements `pathgrant grants list|revoke` on the store file
// directly. Exit 0 on success, 2 for usage or input errors, 1 otherwise.
func runGrants(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return storeExit("grants", storeUsagef("missing subcommand (list or revoke)"), stderr)
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
	return storeExit("grants", storeUsagef("unknown subcommand %q (want list or revoke)", args[0]), stderr)
}

// runAudit implements `pathgrant audit`: the audit log as text or JSON
// lines, oldest first.
func runAudit(args []string, stdout, stderr io.Writer) int {
	return storeExit("audit", auditPrint(args, stdout), stderr)
}

// storeExit prints err as one line and maps it to the exit status.
func storeExit(cmd string, err error, stderr io.Writer) int {
	var ue *storeUsageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stderr, usageFor(cmd))
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "pathgrant %s: %s (%s --help)\n", cmd, storeOneLine(err.Error()), "pathgrant "+strings.Fields(cmd)[0])
		return 2
	}
	fmt.Fprintf(stderr, "pathgrant %s: %s\n", cmd, storeOneLine(err.Error()))
	return 1
}

func usageFor(cmd string) string {
	if strings.HasPrefix(cmd, "audit") {
		return auditUsageText
	}
	return grantsUsageText
}

func storeOneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// newStoreFlags returns a flag set with --store that reports errors to
// the caller instead of printing them.
func newStoreFlags(name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs, fs.String("store", "", "store file (default $PATHGRANT_STORE, else the XDG state dir)")
}

// parseStoreFlags parses flags anywhere among the arguments (so that
// `revoke ID --store P` works) and returns the positional ones.
func parseStoreFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, storeUsagef("%v", err)
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

// openStore opens the store for a command. With missingOK a store that
// does not exist yet yields (nil, nil): there is nothing to show.
func openStore(flagValue string, missingOK bool) (*grants.Store, error) {
	path, err := grants.ResolvePath(flagValue)
	if err != nil {
		return nil, err
	}
	s, err := grants.Open(path, grants.Options{NoWatch: true, NoCreate: true})
	if errors.Is(err, fs.ErrNotExist) && missingOK {
		return nil, nil
	}
	return s, err
}

func grantsList(args []string, stdout io.Writer) error {
	fs, store := newStoreFlags("grants list")
	asJSON := fs.Bool("json", false, "one JSON object per grant")
	session := fs.String("session", "", "only grants approved in this session")
	all := fs.Bool("all", false, "include ended and expired grants")
	pos, err := parseStoreFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return storeUsagef("unexpected argument %q", pos[0])
	}
	s, err := openStore(*store, true)
	if err != nil || s == nil {
		return err
	}
	defer s.Close()
	gs, err := s.List(grants.Filter{Session: *session, IncludeRevoked: *all, IncludeExpired: *all})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeGrantsJSON(stdout, s, gs)
	}
	return writeGrantsTable(stdout, s, gs)
}

// grantRow is a grant as `grants list --json` prints it: the stored
// fields plus its state now.
type grantRow struct {
	grants.Grant
	State string `json:"state"`
}

func grantState(s *grants.Store, g grants.Grant) string {
	if s.Foreign(g) {
		return "foreign-device"
	}
	return g.State(time.Now())
}

func writeGrantsJSON(w io.Writer, s *grants.Store, gs []grants.Grant) error {
	enc := json.NewEncoder(w)
	for _, g := range gs {
		if err := enc.Encode(grantRow{Grant: g, State: grantState(s, g)}); err != nil {
			return fmt.Errorf("write grants: %w", err)
		}
	}
	return nil
}

func writeGrantsTable(w io.Writer, s *grants.Store, gs []grants.Grant) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSCOPE\tOP\tKIND\tSTATE\tUSES\tEXPIRES\tSESSION\tPATH")
	for _, g := range gs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", g.ID, g.Scope, g.Op, g.Kind,
			grantState(s, g), g.UseCount, cliTime(g.Expires), orDash(g.Session), g.Path)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write grants: %w", err)
	}
	return nil
}

func grantsRevoke(args []string, stdout io.Writer) error {
	fs, store := newStoreFlags("grants revoke")
	session := fs.String("session", "", "revoke every live grant approved in this session")
	pos, err := parseStoreFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 1:
		return storeUsagef("unexpected argument %q", pos[1])
	case (len(pos) == 1) == (*session != ""):
		return storeUsagef("give exactly one of a grant ID or --session S")
	}
	s, err := openStore(*store, false)
	if err != nil {
		return err
	}
	defer s.Close()
	if *session != "" {
		n, err := s.RevokeSession(*session)
		if err == nil {
			fmt.Fprintf(stdout, "revoked %d grant(s) of session %s\n", n, *session)
		}
		return err
	}
	return revokeOne(s, pos[0], stdout)
}

func revokeOne(s *grants.Store, id string, stdout io.Writer) error {
	err := s.Revoke(id)
	if errors.Is(err, grants.ErrNotFound) {
		return storeUsagef("no grant with id %q", id)
	}
	if err == nil {
		fmt.Fprintf(stdout, "revoked %s\n", id)
	}
	return err
}

func auditPrint(args []string, stdout io.Writer) error {
	fs, store := newStoreFlags("audit")
	since := fs.String("since", "", "only records since T (RFC3339, or a duration such as 1h)")
	session := fs.String("session", "", "only records of this session")
	asJSON := fs.Bool("json", false, "JSON lines")
	pos, err := parseStoreFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return storeUsagef("unexpected argument %q", pos[0])
	}
	from, err := parseSince(*since, time.Now())
	if err != nil {
		return err
	}
	s, err := openStore(*store, true)
	if err != nil || s == nil {
		return err
	}
	defer s.Close()
	f := grants.AuditFilter{Since: from, Session: *session}
	if *asJSON {
		return s.ExportJSONL(stdout, f)
	}
	return writeAuditTable(stdout, s, f)
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
	return time.Time{}, storeUsagef("--since %q: want an RFC3339 time or a duration such as 1h", v)
}

func writeAuditTable(w io.Writer, s *grants.Store, f grants.AuditFilter) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tKIND\tSESSION\tOP\tPATH\tSCOPE\tGRANT\tREASON")
	err := s.EachAudit(f, func(r grants.Record) error {
		_, err := fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cliTime(r.Time), r.Kind,
			orDash(r.Session), orDash(string(r.Op)), orDash(r.Path), orDash(string(r.Scope)),
			orDash(r.Grant), r.Reason)
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
