package hooks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestOpenCodeBuiltinOrServerTool: OpenCode names an MCP tool SERVER_TOOL
// and puts the MCP tools in a call's tool set after its own, so an MCP
// tool named like one of its tools (apply_patch: server "apply", tool
// "patch") replaces it; and its MCP resource tools (read_mcp_resource,
// list_mcp_resources, list_mcp_resource_templates), which read any
// server's resources, start with a server's name when a server is named
// "read" or "list". Neither is mapped as the built-in nor taken for that
// server's tool: which one runs cannot be told from the call, and an
// unmapped tool is refused by default where another server's tool is left
// to OpenCode.
func TestOpenCodeBuiltinOrServerTool(t *testing.T) {
	const patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch"
	cases := []struct {
		name, tool, args, servers string
		mcp                       bool // taken for an MCP server's tool
		err                       error
	}{
		{"apply_patch with no server apply", "apply_patch", `{"patchText":` + fmt.Sprintf("%q", patch) + `}`, `{"github":{}}`, false, nil},
		{"apply_patch beside a server apply", "apply_patch", `{"patchText":` + fmt.Sprintf("%q", patch) + `}`, `{"apply":{}}`, false, errUnknownTool},
		{"apply_patch beside a server Apply (names are compared as they are)", "apply_patch", `{"patchText":` + fmt.Sprintf("%q", patch) + `}`, `{"Apply":{}}`, false, nil},
		{"read_mcp_resource with no server read", "read_mcp_resource", `{"server":"fs","uri":"file:///etc/passwd"}`, `{"fs":{}}`, false, errUnknownTool},
		{"read_mcp_resource beside a server read", "read_mcp_resource", `{"server":"fs","uri":"file:///etc/passwd"}`, `{"fs":{},"read":{}}`, false, errUnknownTool},
		{"list_mcp_resources beside a server list", "list_mcp_resources", `{}`, `{"list":{}}`, false, errUnknownTool},
		{"list_mcp_resource_templates beside a server list", "list_mcp_resource_templates", `{}`, `{"list":{}}`, false, errUnknownTool},
		{"a server's own tool", "read_file", `{}`, `{"read":{}}`, true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := fmt.Sprintf(`{"hook_event_name":"tool.execute.before","session_id":"opencode-1","cwd":"/w","tool_name":%q,"args":%s,"mcp_servers":%s}`,
				tc.tool, tc.args, tc.servers)
			c, err := adapterOf(t, "opencode").parse([]byte(in))
			if !errors.Is(err, tc.err) || (err == nil && c.MCP != tc.mcp) {
				t.Errorf("call %+v, error %v; want MCP %v, error %v", c, err, tc.mcp, tc.err)
			}
		})
	}
}

// TestOpenCodeInstructionPastClaude: OpenCode's read tool skips CLAUDE.md
// under OPENCODE_DISABLE_CLAUDE_CODE or OPENCODE_DISABLE_CLAUDE_CODE_PROMPT
// and hands over the folder's CONTEXT.md instead, so a CONTEXT.md beside a
// CLAUDE.md is judged too: one the agent linked to a file outside was
// read with no question when the person's OpenCode runs with either set.
func TestOpenCodeInstructionPastClaude(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, secret := root+"/w", root+"/secret.txt"
	agentsWriteFile(t, secret, "s")
	agentsWriteFile(t, ws+"/a/f.txt", "x")
	agentsWriteFile(t, ws+"/a/CLAUDE.md", "plain")
	agentsWriteFile(t, ws+"/b/f.txt", "x")
	agentsWriteFile(t, ws+"/b/AGENTS.md", "plain")
	agentsWriteFile(t, ws+"/b/CLAUDE.md", "plain")
	for _, link := range []string{ws + "/a/CONTEXT.md", ws + "/b/CONTEXT.md"} {
		if err := os.Symlink(secret, link); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		file string
		want []string
	}{
		{ws + "/a/f.txt", []string{ws + "/a/f.txt", ws + "/a/CLAUDE.md", ws + "/a/CONTEXT.md"}},
		{ws + "/b/f.txt", []string{ws + "/b/f.txt", ws + "/b/AGENTS.md"}}, // AGENTS.md always comes first
	} {
		in := fmt.Sprintf(`{"hook_event_name":"tool.execute.before","session_id":"opencode-1","cwd":%q,"tool_name":"read","args":{"filePath":%q},"mcp_servers":null}`,
			ws, tc.file)
		c, err := adapterOf(t, "opencode").parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range c.Accesses {
			got = append(got, a.Path)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("read %s: reads %q, want %q", tc.file, got, tc.want)
		}
	}
}

// TestOpenCodeGrepPathResolvedFirst: OpenCode's grep takes an absolute
// path as it stands but searches the real path of path.resolve of it,
// which drops a `..` with the name before it before any link is followed;
// the kernel, and so the guard, follows the link first. With link a link
// to a/b, w/link/../../home/.ssh/id_rsa is the agent's decoy
// w/home/.ssh/id_rsa to the kernel, whose folder is in the workspace, and
// ~/.ssh/id_rsa to OpenCode, whose ripgrep then searched all of ~/.ssh:
// the search is checked where OpenCode runs it.
func TestOpenCodeGrepPathResolvedFirst(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := root + "/w"
	agentsWriteFile(t, root+"/home/.ssh/id_rsa", "s")
	agentsWriteFile(t, ws+"/a/b/x.txt", "x")
	agentsWriteFile(t, ws+"/home/.ssh/id_rsa", "decoy")
	if err := os.Symlink("a/b", ws+"/link"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path, want string }{
		{"a folder past a link and ..", ws + "/link/../../home/.ssh", root + "/home/.ssh"},
		{"a file past a link and ..", ws + "/link/../../home/.ssh/id_rsa", root + "/home/.ssh"},
		{"a missing name past a link and ..", ws + "/link/../../home/none", root + "/home"},
		{"relative, resolved the same way", "link/../../home/.ssh", root + "/home/.ssh"},
		{"the link itself", ws + "/link", ws + "/link"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkOpenCodeGrep(t, ws, tc.path, tc.want)
		})
	}
}
