package frontend

import (
	"context"
	"time"

	"pathgrant/sandbox/launch"
	"pathgrant/wire"
)

// callTimeout bounds one exchange with the daemon.
const callTimeout = 10 * time.Second

// Fetch asks the daemon on socket to prepare req's sandbox, presenting
// the exec capability cap for the command text's hash.
func Fetch(socket, cap string, req wire.ExecRequest) (wire.Prepared, error) {
	var p wire.Prepared
	err := call(socket, wire.PathExec, cap, launch.CommandText(req.Argv), req, &p)
	return p, err
}

// reportTimeout bounds the report of a command's end, which waits for
// the daemon's check of the workspace: a very large one takes seconds.
// Past it the daemon goes on checking, and the session's next command
// waits for it.
const reportTimeout = 10 * time.Minute

// Explain reports the end of the command p ran (argv) to the daemon,
// presenting p's report ticket, with the refusals lines name (none for a
// command that succeeded), and returns what to tell the agent: what the
// daemon's check neutralised, and about each refused path.
func Explain(socket string, p wire.Prepared, argv, lines []string) ([]string, error) {
	var out wire.Report
	err := callFor(reportTimeout, socket, wire.PathReport, p.Ticket, launch.CommandText(argv), wire.Report{Lines: lines}, &out)
	return out.Lines, err
}

// call POSTs in to path with the capability headers and decodes the
// answer into out; a refusal is a *wire.DaemonError.
func call(socket, path, cap, text string, in, out any) error {
	return callFor(callTimeout, socket, path, cap, text, in, out)
}

func callFor(timeout time.Duration, socket, path, cap, text string, in, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := wire.Client{Socket: socket}
	return c.Do(ctx, "POST", path, in, out,
		wire.Header{Name: wire.HeaderCapability, Value: cap}, wire.Header{Name: wire.HeaderCommandHash, Value: launch.CommandHash(text)})
}
