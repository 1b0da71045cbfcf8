package ipc

import (
	"context"
	"errors"
	"testing"

	"pathgrant/devicepolicy"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestUnlistedToolsFollowThePolicy: a hook's check of a tool whose
// accesses it cannot know (a client's own tool it cannot map, another MCP
// server's tool) is answered from the device policy in force, never with
// an allow: left to the client, with nothing recorded, where the policy
// says "ask-client", else denied and recorded as a refusal. A check that
// names anything besides the tool is refused.
func TestUnlistedToolsFollowThePolicy(t *testing.T) {
	for _, tc := range []struct {
		name              string
		unknown, unmapped string // the device policy's settings, "" for none configured
		req               wire.CheckRequest
		rule              wire.Rule
		left              bool // left to the client
		status            int  // the HTTP status of a refused check, 0 for an answer
	}{
		{name: "unmapped, no policy file: denied", req: wire.CheckRequest{Tool: "Skill", Unmapped: true}, rule: wire.RuleUnmapped},
		{name: "unmapped, deny", unknown: devicepolicy.AskClient, unmapped: devicepolicy.DenyTool,
			req: wire.CheckRequest{Tool: "Skill", Unmapped: true}, rule: wire.RuleUnmapped},
		{name: "unmapped, ask-client", unknown: devicepolicy.DenyTool, unmapped: devicepolicy.AskClient,
			req: wire.CheckRequest{Tool: "Skill", Unmapped: true}, rule: wire.RuleUnmapped, left: true},
		{name: "other MCP, no policy file: left to the client", req: wire.CheckRequest{Tool: "read", OtherMCP: true, MCPServer: "fs"},
			rule: wire.RuleUnknownMCP, left: true},
		{name: "other MCP, ask-client", unknown: devicepolicy.AskClient, unmapped: devicepolicy.DenyTool,
			req: wire.CheckRequest{Tool: "read", OtherMCP: true}, rule: wire.RuleUnknownMCP, left: true},
		{name: "other MCP, deny", unknown: devicepolicy.DenyTool, unmapped: devicepolicy.AskClient,
			req: wire.CheckRequest{Tool: "read", OtherMCP: true, MCPServer: "fs"}, rule: wire.RuleUnknownMCP},
		{name: "both kinds at once", req: wire.CheckRequest{Tool: "read", OtherMCP: true, Unmapped: true}, status: 400},
		{name: "other MCP without its tool", req: wire.CheckRequest{OtherMCP: true}, status: 400},
		{name: "other MCP with a path", req: wire.CheckRequest{Tool: "read", OtherMCP: true, Op: guard.OpRead, Path: "/etc/passwd"}, status: 400},
		{name: "unmapped with a command", req: wire.CheckRequest{Tool: "x", Unmapped: true, Command: "true"}, status: 400},
		{name: "unmapped naming a server", req: wire.CheckRequest{Tool: "x", Unmapped: true, MCPServer: "fs"}, status: 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t, func(c *Config) {
				if tc.unknown != "" {
					p := devicepolicy.Policy{Confinement: true, UnknownTools: tc.unknown, UnmappedTools: tc.unmapped,
						RetentionDays: devicepolicy.DefaultRetentionDays}
					c.DeviceFile = func() devicepolicy.Policy { return p }
				}
			})
			c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
			ans, err := c.Check(context.Background(), tc.req)
			if tc.status != 0 {
				var de *wire.DaemonError
				if !errors.As(err, &de) || de.Status != tc.status {
					t.Fatalf("%+v %v, want HTTP %d", ans, err, tc.status)
				}
				return
			}
			if err != nil || ans.Allowed() || ans.Rule != tc.rule || ans.LeftToClient != tc.left || ans.Eligible || ans.Pending != "" {
				t.Fatalf("%+v %v, want a deny by %s, left to the client %v", ans, err, tc.rule, tc.left)
			}
			recs, err := e.store.AuditRecords(grants.AuditFilter{Kind: grants.KindRefuse})
			if want := map[bool]int{true: 0, false: 1}[tc.left]; err != nil || len(recs) != want {
				t.Fatalf("%d refuse records (%v), want %d: %+v", len(recs), err, want, recs)
			}
			if e.approver.shown.Load() != 0 {
				t.Error("an unlisted tool opened a prompt")
			}
		})
	}
}
