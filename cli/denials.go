package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"pathgrant/apiclient"
	"pathgrant/wire"
)

// `pathgrant denials`: the remembered denials ("deny for this session"),
// which live in the daemon with their sessions, never in the store.

const denialsUsageText = "usage: pathgrant denials [--json] [--socket PATH]\n" +
	"       pathgrant denials lift ID [--socket PATH]   (the access asks the person again)"

func runDenials(args []string, stdout, stderr io.Writer) int {
	return daemonExit("denials", denialsUsageText, denials(args, stdout), stdout, stderr)
}

func denials(args []string, stdout io.Writer) error {
	lift := len(args) > 0 && args[0] == "lift"
	if lift {
		args = args[1:]
	}
	fs, socket := newDaemonFlags("denials")
	asJSON := fs.Bool("json", false, "one JSON array")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	sock := socketOr(*socket)
	client := apiclient.New(sock)
	ctx, cancel := context.WithTimeout(context.Background(), daemonCallTimeout)
	defer cancel()
	switch {
	case lift && len(pos) != 1:
		return usagef("give exactly one denial ID (%s)", denialsUsageText)
	case lift:
		if err := client.LiftDenial(ctx, pos[0]); err != nil {
			return daemonError(sock, err)
		}
		_, err := fmt.Fprintf(stdout, "lifted %s\n", pos[0])
		return err
	case len(pos) > 0:
		return usagef("unexpected argument %q", pos[0])
	}
	list, err := client.Denials(ctx)
	if err != nil {
		return daemonError(sock, err)
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
	fmt.Fprintln(tw, "ID\tSESSION\tAGENT\tOP\tPATH\tDENIED\tAGE")
	for _, d := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", d.ID, shortID(d.Session), orDash(shown(d.Agent)), opShown(d.Op), shown(d.Path), d.Hits, age(now.Sub(d.Created)))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write denials: %w", err)
	}
	return nil
}
