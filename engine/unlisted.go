package engine

import (
	"fmt"

	"pathgrant/devicepolicy"
	"pathgrant/guard"
	"pathgrant/wire"
)

// A hook meets two kinds of tool whose file accesses it cannot know: a
// client's own tool it cannot map (unmapped_tools) and another MCP
// server's tool (unknown_tools). The device policy says whether each is
// refused or left to the client's own permission flow, and the daemon
// answers from the policy in force (the one its watcher keeps, the last
// good one when a change is refused), so the hook never parses the
// policy file and cannot disagree with the daemon about it. Neither
// answer is ever an allow.

// unlisted answers an Unmapped or OtherMCP check.
func (s *Engine) unlisted(sess *session, req wire.CheckRequest) (wire.Answer, *Error) {
	switch {
	case req.Unmapped && req.OtherMCP:
		return wire.Answer{}, errorf(BadRequest, "", "a check is unmapped or another MCP server's, not both")
	case req.Tool == "" || req.Command != "" || req.Op != "" || req.Path != "":
		return wire.Answer{}, errorf(BadRequest, "", "an unmapped or other MCP check names its tool and nothing else")
	case req.Unmapped && req.MCPServer != "":
		return wire.Answer{}, errorf(BadRequest, "", "an unmapped check names no MCP server")
	}
	file := s.deviceFile()
	if req.Unmapped {
		return s.unmapped(sess, req, file.UnmappedTools), nil
	}
	return s.otherMCP(sess, req, file.UnknownTools), nil
}

// unmapped answers a check for a tool the hook could not map to the files
// it touches: left to the client under unmapped_tools = "ask-client",
// else (the default, and any setting not ask-client) denied and recorded
// as a refusal.
func (s *Engine) unmapped(sess *session, req wire.CheckRequest, setting string) wire.Answer {
	ans := wire.Answer{Decision: guard.Deny, Session: sess.ID, Workflow: sess.Workflow, Execution: req.Execution,
		Tool: req.Tool, RequestID: req.RequestID, Rule: wire.RuleUnmapped}
	if setting == devicepolicy.AskClient {
		ans.LeftToClient = true
		ans.Reason = fmt.Sprintf("the tool %q is left to the client's own permission flow (unmapped_tools = \"ask-client\")", req.Tool)
		return ans
	}
	ans.Reason = fmt.Sprintf("the files the tool %q touches cannot be known before it runs, so it is denied: do not retry it; "+
		"do it with a file or shell tool instead, or ask the person to set unmapped_tools = \"ask-client\" in pathgrant's device policy, "+
		"which leaves such tools to the client's own permission flow", req.Tool)
	s.refused(sess, req, ans)
	return ans
}

// otherMCP answers a check for another MCP server's tool: denied and
// recorded as a refusal under unknown_tools = "deny", else (the default)
// left to the client.
func (s *Engine) otherMCP(sess *session, req wire.CheckRequest, setting string) wire.Answer {
	what := fmt.Sprintf("MCP tool %q", req.Tool)
	if req.MCPServer != "" {
		what += fmt.Sprintf(" of server %q", req.MCPServer)
	}
	ans := wire.Answer{Decision: guard.Deny, Session: sess.ID, Workflow: sess.Workflow, Execution: req.Execution,
		Tool: req.Tool, RequestID: req.RequestID, Rule: wire.RuleUnknownMCP}
	if setting != devicepolicy.DenyTool {
		ans.LeftToClient = true
		ans.Reason = what + " is left to the client's own permission flow (unknown_tools = \"ask-client\")"
		return ans
	}
	ans.Reason = what + " is not one pathgrant can check, and the device policy says unknown_tools = \"deny\": do not retry it; " +
		"the person can set unknown_tools = \"ask-client\" in pathgrant's device policy to leave such tools to the client's own permission flow"
	s.refused(sess, req, ans)
	return ans
}
