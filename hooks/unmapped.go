package hooks

import (
	"context"
	"fmt"

	"pathgrant/appdirs"
	"pathgrant/devicepolicy"
	"pathgrant/wire"
)

// A tool pathgrant cannot map is one of the client's own tools that is
// neither in the adapter's mapping nor among the client's tools known to
// touch no local file (a tool a newer client added, a custom Pi tool):
// it may read or write anything, so by default it is refused. The daemon
// is told (an unmapped check, which it denies and records as a refusal,
// so the person sees in the audit log what was tried), and the call is
// denied whatever it answers. With unmapped_tools = "ask-client" in the
// device policy, the hook makes no decision and asks nothing: the
// client's own permission flow decides, as it would without the hook. A
// policy file that cannot be read denies.

// unmappedVerdict answers a call of a tool pathgrant cannot map.
func unmappedVerdict(ctx context.Context, c Call, getenv appdirs.Getenv, socket string) (Verdict, []wire.Answer, error) {
	what := fmt.Sprintf("%s tool %q", c.Client, c.Tool)
	setting, err := UnmappedTools(getenv)
	switch {
	case err != nil:
		return Verdict{Reason: "pathgrant: " + what + " denied: " + err.Error()}, nil, err
	case setting == AskClient:
		return Verdict{Defer: true, Reason: "pathgrant: " + what + " is left to " + c.Client +
			"'s own permission flow (unmapped_tools = \"ask-client\")"}, nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, answerGrace)
	defer cancel()
	req := wire.CheckRequest{ClientSession: c.ClientSession, EnvSession: getenv(appdirs.SessionEnv), Agent: c.Client,
		Tool: c.Tool, RequestID: c.RequestID, Cwd: c.Cwd, WorkspaceRoots: c.WorkspaceRoots, Unmapped: true}
	ans, err := check(ctx, socket, getenv(appdirs.TokenEnv), req)
	if err != nil {
		return Verdict{Reason: failureReason(err)}, nil, err
	}
	// Denied whatever the daemon said: nothing can make an unmapped tool
	// safe to allow.
	reason := ans.Reason
	if ans.Allowed() || reason == "" {
		reason = what + " is not one pathgrant can map to the files it touches, so it is denied"
	}
	return Verdict{Reason: "pathgrant: " + reason}, []wire.Answer{ans}, nil
}

// UnmappedTools reads the device policy's unmapped_tools setting as
// UnknownTools reads unknown_tools: no file means the default, DenyTool;
// a file the daemon would refuse is an error, on which the caller denies.
func UnmappedTools(getenv appdirs.Getenv) (string, error) {
	p, err := devicepolicy.Read(getenv)
	if err != nil {
		return "", err
	}
	return p.UnmappedTools, nil
}
