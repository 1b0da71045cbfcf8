package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/mcp"
)

const mcpUsageText = "usage: pathgrant mcp [--session ID] [--socket PATH] [--wait DURATION]"

// mcpArgs are the bridge's flags. The session and token default to
// $PATHGRANT_SESSION and $PATHGRANT_TOKEN (set by `pathgrant run`); with
// no session the bridge asks for the session of the agent process it runs
// under, the one the agent's hooks registered.
type mcpArgs struct {
	session, token, socket string
	wait                   time.Duration
}

func parseMCPArgs(args []string, getenv func(string) string) (mcpArgs, error) {
	a := mcpArgs{token: getenv(appdirs.TokenEnv)}
	fs := newFlags("mcp")
	fs.StringVar(&a.session, "session", getenv(appdirs.SessionEnv), "session id (default $"+appdirs.SessionEnv+")")
	fs.StringVar(&a.socket, "socket", "", "daemon socket (default $PATHGRANT_SOCKET, else the XDG runtime dir)")
	fs.DurationVar(&a.wait, "wait", 50*time.Second, "how long a call may wait for the user's approval")
	if err := parseLeading(fs, args); err != nil {
		return a, err
	}
	switch {
	case fs.NArg() > 0:
		return a, usagef("unexpected argument %q", fs.Arg(0))
	case a.wait < 0:
		return a, usagef("--wait must not be negative")
	}
	a.socket = appdirs.SocketOr(a.socket, getenv)
	return a, nil
}

// runMCP implements `pathgrant mcp`: the MCP server on stdio that agent
// clients launch. Every tool call goes to the daemon for one session;
// the bridge itself checks and runs nothing.
func runMCP(args []string, stdout, stderr io.Writer) int {
	a, err := parseMCPArgs(args, os.Getenv)
	if err != nil {
		return parseFailed("mcp", mcpUsageText, err, stdout, stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	c := apiclient.ForSession(a.socket, a.session, a.token)
	defer c.CloseIdle()
	o := mcp.Options{Caller: c, AgentProcess: a.session == "", WaitMS: int(a.wait / time.Millisecond),
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if err := mcp.Serve(ctx, o, os.Stdin, nopWriteCloser{stdout}); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "pathgrant mcp: %s\n", oneLine(err.Error()))
		return 1
	}
	return 0
}

// nopWriteCloser lets the command's stdout serve as the transport's
// writer without the transport closing the process's stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
