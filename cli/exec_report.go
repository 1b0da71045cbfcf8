package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"pathgrant/guard"
	"pathgrant/ipc"
)

// A confined command that fails on a path outside its view says only
// "No such file or directory" or "Permission denied", and an agent that
// reads that retries blindly. When its stderr is captured (an agent's
// tool, not a terminal), exec runs the sandbox as its child, passes the
// command's stderr through as it comes, remembers the lines that name a
// refused path (launch.Scanner), and after a failing exit asks the daemon
// about a read of each such path outside the view: one line per path then
// says whether it can be approved (and that the approval was raised) or
// not. A hook's rewritten command does the same through the daemon's
// report route (package launch); this is `pathgrant exec` with a session.
//
// Identity for that check: exec runs outside the sandbox, as a descendant
// of the agent, so it asks as the session the way the agent's hook does:
// a hook-only session is bound to the agent process, which is in exec's
// lineage; a registered session by its token ($PATHGRANT_TOKEN, which
// `pathgrant run` sets). No new credential exists and none is handed to
// the command: the confined command cannot reach the socket, and what
// exec checks (reads, never waiting, at most launch.MaxReported a run) is
// what the agent could already ask through its hook.

// reportRefusals asks the daemon about a read of each path for the
// session (which raises an approval request where one can be given) and
// writes one line per path to w.
func (r *execRun) reportRefusals(w io.Writer, paths []string) {
	if len(paths) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := &ipc.Client{Socket: r.socket, Session: r.session, Token: r.token}
	defer c.CloseIdle()
	for _, p := range paths {
		ans, err := c.Check(ctx, ipc.CheckRequest{Op: guard.OpRead, Path: p, Tool: "exec (refused path)"})
		fmt.Fprintln(w, ipc.RefusalLine(p, ans, err))
	}
}
