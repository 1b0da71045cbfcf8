// Package mcp is pathgrant's MCP bridge: an MCP server on stdio that agent
// clients launch, offering execute_shell_command, read_file, write_file
// and list_directory. It checks and runs nothing itself: every call is
// forwarded to the daemon's tool route for the bridge's one session, and
// the daemon's structured result (a denial with its reason, pending
// approval id and what the person must do before the call is tried
// again, or the output) is returned as the MCP tool result.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"pathgrant/guard"
	"pathgrant/tools"
	"pathgrant/wire"
)

// Caller forwards one tool call to the daemon; *apiclient.Client is one.
type Caller interface {
	Tool(ctx context.Context, tool string, req wire.ToolRequest) (tools.Result, error)
}

// Options configure a bridge.
type Options struct {
	// Caller reaches the daemon, with the session named in it (the
	// client's Session and Token) unless AgentProcess is set.
	Caller Caller
	// AgentProcess asks the daemon for the session of the agent process
	// the bridge runs under, for a hook-only client: the bridge, like the
	// hooks, is a child of the agent.
	AgentProcess bool
	// WaitMS is how long a call may wait for the user's approval.
	WaitMS  int
	Version string
	Logger  *slog.Logger
}

// NewServer returns the MCP server with the four tools.
func NewServer(o Options) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "pathgrant", Version: o.Version}, &sdk.ServerOptions{Logger: o.Logger})
	for _, t := range toolDefs() {
		srv.AddTool(t, forward(o, t.Name))
	}
	return srv
}

// Serve runs the bridge on in and out (the client's pipes) until the
// client closes them or ctx ends.
func Serve(ctx context.Context, o Options, in io.ReadCloser, out io.WriteCloser) error {
	if err := NewServer(o).Run(ctx, &sdk.IOTransport{Reader: in, Writer: out}); err != nil {
		return fmt.Errorf("mcp bridge: %w", err)
	}
	return nil
}

// forward is the handler of one tool: the call goes to the daemon as it
// came, and the daemon's answer comes back as the tool result. A daemon
// that cannot be reached, or refuses the session, is an error result:
// the call did not run.
func forward(o Options, tool string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		treq := wire.ToolRequest{Args: req.Params.Arguments, AgentProcess: o.AgentProcess, WaitMS: o.WaitMS}
		res, err := o.Caller.Tool(ctx, tool, treq)
		if err != nil {
			return &sdk.CallToolResult{IsError: true,
				Content: []sdk.Content{&sdk.TextContent{Text: failureText(err)}}}, nil
		}
		return &sdk.CallToolResult{IsError: res.Failed(), StructuredContent: res,
			Content: []sdk.Content{&sdk.TextContent{Text: Text(res)}}}, nil
	}
}

// failureText is what the agent reads when the call did not reach the
// daemon or was refused: pathgrant not running names how to start it.
func failureText(err error) string {
	var ue *wire.UnreachableError
	if errors.As(err, &ue) {
		return ue.Error() + ": not run"
	}
	return fmt.Sprintf("pathgrant: %v: not run", err)
}

// Text is the result as the agent reads it.
func Text(res tools.Result) string {
	if res.Decision != guard.Allow {
		return denialText(res)
	}
	var sb strings.Builder
	switch {
	case res.Content != nil:
		sb.WriteString(*res.Content)
	case res.Entries != nil:
		for _, e := range res.Entries {
			fmt.Fprintf(&sb, "%s\t%s\t%d\n", e.Type, e.Name, e.Size)
		}
	case res.ExitCode != nil:
		shellText(&sb, res)
	case res.Error == "":
		fmt.Fprintf(&sb, "wrote %d bytes to %s\n", res.Bytes, res.Path)
	}
	if res.Truncated {
		sb.WriteString("\n[pathgrant: output truncated at the limit]\n")
	}
	if res.Error != "" {
		fmt.Fprintf(&sb, "error: %s\n", res.Error)
	}
	return sb.String()
}

func denialText(res tools.Result) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "pathgrant denied %s: %s", res.Tool, res.Reason)
	if res.PendingID != "" {
		fmt.Fprintf(&sb, "\napproval request %s is pending: %s", res.PendingID, res.Retry)
		if res.Suggested != nil {
			fmt.Fprintf(&sb, " (it would allow %s of %s, %s)", res.Suggested.Op, res.Suggested.Path, res.Suggested.Kind)
		}
	}
	return sb.String()
}

func shellText(sb *strings.Builder, res tools.Result) {
	if res.Stdout != nil {
		sb.WriteString(*res.Stdout)
	}
	if res.Stderr != nil && *res.Stderr != "" {
		fmt.Fprintf(sb, "\n[stderr]\n%s", *res.Stderr)
	}
	fmt.Fprintf(sb, "\n[exit code %d]\n", *res.ExitCode)
}

// toolDefs are the four tools with their input schemas.
func toolDefs() []*sdk.Tool {
	return []*sdk.Tool{
		{Name: tools.ExecuteShellCommand, Description: "Run a bash command in the session's workspace, confined by the kernel to what the session may touch. Output is capped at 1 MiB per stream.",
			InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["command"],"properties":{` +
				`"command":{"type":"string","description":"the bash command"},` +
				`"cwd":{"type":"string","description":"working directory (default: the session's)"},` +
				`"timeout_ms":{"type":"integer","minimum":1,"description":"kill the command after this many milliseconds (default 120000)"}}}`)},
		{Name: tools.ReadFile, Description: "Read a text file. Reads outside the workspace may need the user's approval.",
			InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["path"],"properties":{` +
				`"path":{"type":"string","description":"absolute, ~/ or relative to the session's cwd"},` +
				`"offset":{"type":"integer","minimum":0,"description":"first line to return, from 0"},` +
				`"limit":{"type":"integer","minimum":0,"description":"number of lines (default: all)"}}}`)},
		{Name: tools.WriteFile, Description: "Write (create or replace) a file inside the workspace.",
			InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["path","content"],"properties":{` +
				`"path":{"type":"string"},"content":{"type":"string"}}}`)},
		{Name: tools.ListDirectory, Description: "List a directory's entries (type, name, size).",
			InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["path"],"properties":{` +
				`"path":{"type":"string"}}}`)},
	}
}
