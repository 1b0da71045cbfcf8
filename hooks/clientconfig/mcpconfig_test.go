package clientconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPPaths pins where each client keeps its MCP servers, for the user
// (with and without the variable that moves the client's folder) and for
// a project, and that each of those files is protected.
func TestMCPPaths(t *testing.T) {
	const home = "/h"
	tests := []struct {
		client, project string
		env             map[string]string
		want            string
	}{
		{client: "claude", want: "/h/.claude.json"},
		{client: "claude", env: map[string]string{"CLAUDE_CONFIG_DIR": "/c"}, want: "/c/.claude.json"},
		{client: "claude", project: "/w", want: "/w/.mcp.json"},
		{client: "codex", want: "/h/.codex/config.toml"},
		{client: "codex", env: map[string]string{"CODEX_HOME": "/x"}, want: "/x/config.toml"},
		{client: "codex", project: "/w", want: "/w/.codex/config.toml"},
		{client: "gemini", want: "/h/.gemini/settings.json"},
		{client: "gemini", project: "/w", want: "/w/.gemini/settings.json"},
		{client: "cursor", want: "/h/.cursor/mcp.json"},
		{client: "cursor", project: "/w", want: "/w/.cursor/mcp.json"},
		{client: "pi", want: ""},
		{client: "qwen", want: "/h/.qwen/settings.json"},
		{client: "droid", want: "/h/.factory/mcp.json"},
		{client: "cline", want: "/h/.cline/data/settings/cline_mcp_settings.json"},
		{client: "cline", project: "/w", want: ""},
		{client: "droid", env: map[string]string{"FACTORY_HOME_OVERRIDE": "/f"}, want: "/f/.factory/mcp.json"},
		{client: "droid", project: "/w", want: "/w/.factory/mcp.json"},
		{client: "qwen", project: "/w", want: "/w/.qwen/settings.json"},
		{client: "copilot", want: "/h/.copilot/mcp-config.json"},
		{client: "copilot", env: map[string]string{"COPILOT_HOME": "/cp"}, want: "/cp/mcp-config.json"},
		{client: "copilot", project: "/w", want: "/w/.github/mcp.json"},
		{client: "opencode", want: "/h/.config/opencode/opencode.json"},
		{client: "opencode", env: map[string]string{"XDG_CONFIG_HOME": "/x"}, want: "/x/opencode/opencode.json"},
		{client: "opencode", project: "/w", want: "/w/opencode.json"},
	}
	for _, tc := range tests {
		t.Run(tc.client+tc.project+tc.want, func(t *testing.T) {
			c, err := LookupClient(tc.client)
			if err != nil {
				t.Fatal(err)
			}
			getenv := func(k string) string { return tc.env[k] }
			got := c.MCPPath(getenv, home, tc.project)
			if got != tc.want {
				t.Fatalf("MCP configuration %q, want %q", got, tc.want)
			}
			switch {
			case got == "":
			case tc.project != "" && !protects(ProjectProtected(), strings.TrimPrefix(got, tc.project+"/")):
				t.Errorf("%s is not protected in a workspace", got)
			case tc.project == "" && !protects(GlobalProtected(getenv, home), got):
				t.Errorf("%s is not protected", got)
			}
		})
	}
}

// TestInstallMCP registers the bridge in each client's MCP configuration:
// everything else in the file is kept, installing twice changes nothing,
// uninstalling right after restores the file byte for byte (or removes
// the file install created), a change made since is kept, and a server
// of that name that is not pathgrant's is never touched.
func TestInstallMCP(t *testing.T) {
	argv := []string{"/opt/pg/bin/pathgrant", "mcp"}
	tests := []struct {
		client, before, foreign, otherEdit string
		want                               []string // substrings of the installed file
	}{
		{client: "claude",
			before:    "{\n    \"numStartups\": 3,\n    \"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"fs\"]}}\n}",
			foreign:   `{"mcpServers": {"pathgrant": {"command": "/tmp/evil", "args": []}}}`,
			otherEdit: `"numStartups": 4`,
			want:      []string{`"pathgrant": {`, `"command": "/opt/pg/bin/pathgrant"`, `"mcp"`, `"fs"`, `"numStartups": 3`}},
		{client: "gemini",
			before:    `{"hooks": {"BeforeTool": []}, "ui": {"theme": "dark"}}`,
			foreign:   `{"mcpServers": {"pathgrant": {"url": "http://x"}}}`,
			otherEdit: `"theme": "light"`,
			want:      []string{`"mcpServers"`, `"command": "/opt/pg/bin/pathgrant"`, `"theme": "dark"`, `"BeforeTool"`}},
		{client: "cursor",
			before:    `{"mcpServers":{}}`,
			foreign:   `{"mcpServers": {"pathgrant": {"command": "/usr/bin/pathgrant", "args": ["mcp", "--session", "x"]}}}`,
			otherEdit: `"x": 1`,
			want:      []string{`"command": "/opt/pg/bin/pathgrant"`}},
		{client: "copilot",
			before:    `{"mcpServers": {"github": {"type": "http", "url": "https://example.com/mcp"}}}`,
			foreign:   `{"mcpServers": {"pathgrant": {"type": "local", "command": "/tmp/evil", "args": [], "tools": ["*"]}}}`,
			otherEdit: `"x": 1`,
			want:      []string{`"pathgrant": {`, `"type": "local"`, `"command": "/opt/pg/bin/pathgrant"`, `"tools": [`, `"github"`}},
		{client: "codex",
			before:    "# mine\nmodel = \"o3\"\n\n[features]\nhooks = true\n",
			foreign:   "[mcp_servers.pathgrant]\ncommand = \"npx\"\nargs = [\"other\"]\n",
			otherEdit: `model = "o4"`,
			want:      []string{"# mine\nmodel = \"o3\"\n\n[features]\nhooks = true\n\n[mcp_servers.pathgrant]\ncommand = \"/opt/pg/bin/pathgrant\"\nargs = [\"mcp\"]\n"}},
		{client: "opencode",
			before:    "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"mcp\": {\"fs\": {\"type\": \"local\", \"command\": [\"npx\", \"fs\"]}}\n}\n",
			foreign:   `{"mcp": {"pathgrant": {"type": "remote", "url": "http://x"}}}`,
			otherEdit: `"x": 1`,
			want: []string{`"pathgrant": {`, `"type": "local"`, `"command": [`, `"/opt/pg/bin/pathgrant"`, `"enabled": true`, `"fs"`,
				`"$schema": "https://opencode.ai/config.json"`}},
		{client: "opencode",
			before:    `{"model": "fake/m"}`,
			foreign:   `{"mcp": {"pathgrant": {"type": "local", "command": ["/usr/bin/pathgrant", "mcp", "--session", "x"]}}}`,
			otherEdit: `"model": "fake/n"`,
			want:      []string{`"model": "fake/m"`, `"mcp": {`, `"enabled": true`}},
	}
	for _, tc := range tests {
		c, err := LookupClient(tc.client)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(tc.client+"/restores the file", func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "conf")
			mustWriteFile(t, path, tc.before)
			installed := install(t, c, path, argv, false, true)
			for _, w := range tc.want {
				if !strings.Contains(installed, w) {
					t.Errorf("installed file lacks %q:\n%s", w, installed)
				}
			}
			if !c.BridgeConfigured([]byte(installed)) {
				t.Errorf("the installed file does not register the bridge:\n%s", installed)
			}
			install(t, c, path, argv, false, false) // idempotent
			if got := install(t, c, path, argv, true, true); got != tc.before {
				t.Errorf("uninstall left\n%q\nwant the original\n%q", got, tc.before)
			}
			install(t, c, path, argv, true, false)
		})
		t.Run(tc.client+"/no file before", func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "conf")
			install(t, c, path, argv, false, true)
			install(t, c, path, argv, true, true)
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("uninstall left the file install created: %v", err)
			}
		})
		t.Run(tc.client+"/keeps a later change", func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "conf")
			mustWriteFile(t, path, tc.before)
			installed := install(t, c, path, argv, false, true)
			edited := addEdit(installed, tc.otherEdit, c.mcpTOML)
			mustWriteFile(t, path, edited)
			got := install(t, c, path, argv, true, true)
			if c.BridgeConfigured([]byte(got)) || !strings.Contains(got, tc.otherEdit) {
				t.Errorf("uninstall after another change left:\n%s", got)
			}
		})
		t.Run(tc.client+"/another server of that name", func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "conf")
			mustWriteFile(t, path, tc.foreign)
			for _, uninstall := range []bool{false, true} {
				if _, _, err := c.InstallMCP(path, argv, uninstall); err == nil || !strings.Contains(err.Error(), "not pathgrant's") {
					t.Errorf("uninstall=%v: error %v, want a refusal", uninstall, err)
				}
				if data, _ := os.ReadFile(path); string(data) != tc.foreign {
					t.Errorf("the file changed:\n%s", data)
				}
			}
		})
	}
}

// install runs the client's MCP installer and returns the file after it.
func install(t *testing.T, c Client, path string, argv []string, uninstall, wantChanged bool) string {
	t.Helper()
	changed, _, err := c.InstallMCP(path, argv, uninstall)
	if err != nil || changed != wantChanged {
		t.Fatalf("uninstall=%v: changed %v, %v; want changed %v", uninstall, changed, err, wantChanged)
	}
	data, _ := os.ReadFile(path)
	return string(data)
}

// addEdit is a change the user makes after installing: a key replaced in
// place, or for JSON added to the top-level object when the file lacks it.
func addEdit(text, edit string, isTOML bool) string {
	key, _, _ := strings.Cut(edit, ":")
	if isTOML {
		key, _, _ = strings.Cut(edit, "=")
	}
	for line := range strings.Lines(text) {
		if strings.Contains(line, strings.TrimSpace(key)) {
			return strings.Replace(text, strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), ",")), edit, 1)
		}
	}
	return strings.Replace(text, "{", "{"+edit+",", 1)
}

func mustWriteFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
