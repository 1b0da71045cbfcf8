package hooks

import (
	"context"
	"fmt"

	"pathgrant/appdirs"
	"pathgrant/wire"
)

// A tool pathgrant cannot map is one of the client's own tools that is
// neither in the adapter's mapping nor among the client's tools known to
// touch no local file (a tool a newer client added, a custom Pi tool):
// it may read or write anything, so by default it is refused. The hook
// asks the daemon (an unmapped check), which answers from the device
// policy in force: denied and recorded as a refusal, so the person sees
// in the audit log what was tried, or, with unmapped_tools =
// "ask-client", left to the client's own permission flow, as it would be
// without the hook. Another MCP server's tool is asked the same way (an
// other-MCP check, unknown_tools; mcp.go). The hook never reads the
// policy file itself: it starts without a policy parser, and cannot
// disagree with the daemon about which policy is in force.

// unmappedVerdict answers a call of a tool pathgrant cannot map.
func unmappedVerdict(ctx context.Context, c Call, getenv appdirs.Getenv, socket string) (Verdict, []wire.Answer, error) {
	what := fmt.Sprintf("%s tool %q", c.Client, c.Tool)
	req := unlistedRequest(c, getenv)
	req.Unmapped = true
	return unlistedVerdict(ctx, c, getenv, socket, req, unlistedTerms{
		leftReason:   "pathgrant: " + what + " is left to " + c.Client + "'s own permission flow (unmapped_tools = \"ask-client\")",
		deniedReason: what + " is not one pathgrant can map to the files it touches, so it is denied",
	})
}

// unlistedRequest is the check of a tool whose accesses the hook cannot
// know: the session's ids and the tool, no op, path or command.
func unlistedRequest(c Call, getenv appdirs.Getenv) wire.CheckRequest {
	return wire.CheckRequest{ClientSession: c.ClientSession, EnvSession: getenv(appdirs.SessionEnv), Agent: c.Client,
		Tool: c.Tool, RequestID: c.RequestID, Cwd: c.Cwd, WorkspaceRoots: c.WorkspaceRoots}
}

// unlistedTerms are the hook's words for the two answers to an unlisted
// check: left to the client, and denied when the daemon gives no reason.
type unlistedTerms struct {
	leftReason, deniedReason string
}

// unlistedVerdict asks the daemon about a tool whose accesses the hook
// cannot know and turns its answer into a verdict: no decision when the
// device policy leaves the tool to the client, else a deny, whatever the
// daemon said (nothing can make such a tool safe to allow). A daemon
// that does not answer denies.
func unlistedVerdict(ctx context.Context, c Call, getenv appdirs.Getenv, socket string, req wire.CheckRequest, terms unlistedTerms) (Verdict, []wire.Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, answerGrace)
	defer cancel()
	ans, err := check(ctx, socket, getenv(appdirs.TokenEnv), req)
	if err != nil {
		return Verdict{Reason: failureReason(err)}, nil, err
	}
	if ans.LeftToClient && !ans.Allowed() {
		return Verdict{Defer: true, Reason: terms.leftReason}, []wire.Answer{ans}, nil
	}
	reason := ans.Reason
	if ans.Allowed() || reason == "" {
		reason = terms.deniedReason
	}
	return Verdict{Reason: "pathgrant: " + reason}, []wire.Answer{ans}, nil
}
