package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"pathgrant/grants"
	"pathgrant/wire"
)

// `pathgrant denials`: the remembered denials, "Deny for this session"
// (ending with their session) and "Deny on this device" (until lifted).
// Both are kept in the store, so they are listed and lifted through the
// daemon when one answers, else on the store file, as grants are.

const denialsUsageText = "usage: pathgrant denials [list] [--json] [--store PATH] [--socket PATH]\n" +
	"       pathgrant denials lift ID [--store PATH] [--socket PATH]   (the access asks the person again)"

func runDenials(args []string, stdout, stderr io.Writer) int {
	return daemonExit("denials", denialsUsageText, denials(args, stdout), stdout, stderr)
}

func denials(args []string, stdout io.Writer) error {
	lift := len(args) > 0 && args[0] == "lift"
	if len(args) > 0 && (args[0] == "lift" || args[0] == "list") {
		args = args[1:]
	}
	fs, where := newStoreFlags("denials")
	asJSON := fs.Bool("json", false, "one JSON array")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case lift && len(pos) != 1:
		return usagef("give exactly one denial ID (%s)", denialsUsageText)
	case !lift && len(pos) > 0:
		return usagef("unexpected argument %q", pos[0])
	}
	b, err := openBackend(where, !lift)
	if err != nil || b == nil {
		return err
	}
	defer b.Close()
	if lift {
		if err := b.LiftDenial(pos[0]); err != nil {
			if errors.Is(err, grants.ErrNotFound) {
				return usagef("no remembered denial with id %q", pos[0])
			}
			return err
		}
		_, err := fmt.Fprintf(stdout, "lifted %s: that access asks the person again\n", pos[0])
		return err
	}
	list, err := b.Denials()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSONArray(stdout, list)
	}
	return writeDenialsTable(stdout, list, time.Now())
}

// writeJSONArray writes list as one indented JSON array, [] when empty.
func writeJSONArray[T any](w io.Writer, list []T) error {
	if list == nil {
		list = []T{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(list); err != nil {
		return fmt.Errorf("write the list: %w", err)
	}
	return nil
}

func writeDenialsTable(w io.Writer, list []wire.Denial, now time.Time) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "no remembered denials")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tHOLDS\tSESSION\tAGENT\tOP\tPATH\tDENIED\tAGE")
	for _, d := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", d.ID, denialHolds(d), shortID(d.Session), orDash(shown(d.Agent)),
			opShown(d.Op), shown(d.Path), d.Hits, age(now.Sub(d.Created)))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write denials: %w", err)
	}
	return nil
}

// denialHolds is how far a denial reaches, in words: the session it was
// decided in, or every session on this device.
func denialHolds(d wire.Denial) string {
	if d.Device {
		return "this device"
	}
	return "its session"
}
