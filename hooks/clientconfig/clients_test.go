package clientconfig

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pathgrant/hooks"
)

// TestClientTableComplete fails when any row of the install-time client
// table lacks a part: a client added with no settings path, editor or protected files
// would install a hook that nothing protects, or none at all.
func TestClientTableComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "" || seen[c.name] {
				t.Fatalf("name %q is empty or repeated", c.name)
			}
			seen[c.name] = true
			v := reflect.ValueOf(c)
			for i := range v.NumField() {
				f := v.Type().Field(i)
				if f.Name == "Client" || f.Name == "DirEnv" || f.Name == "envHome" || f.Name == "envDir" || f.Name == "HomeDirs" || f.Name == "mcpBesideDir" || f.Name == "mcpTOML" || f.Name == "ProjectNote" || f.Name == "ProjectMCPConfig" {
					continue // the hook's half (checked in hooks), or optional: not every client can be moved, keeps its MCP servers beside its folder or in TOML, or needs a step after a project install
				}
				if isMCPField(f.Name) && (c.noMCP != "") == !v.Field(i).IsZero() {
					t.Errorf("field %s: a client either has MCP servers (and every MCP field) or says why not in noMCP", f.Name)
					continue
				}
				if isMCPField(f.Name) || f.Name == "noMCP" {
					continue
				}
				if v.Field(i).IsZero() {
					t.Errorf("field %s is empty", f.Name)
				}
			}
			for _, rel := range append(slices.Clone(c.Protected), c.Settings) {
				if filepath.IsAbs(rel) || strings.HasPrefix(rel, "..") {
					t.Errorf("%s is not relative to the client's folder", rel)
				}
			}
			if !protects(c.Protected, c.Settings) {
				t.Errorf("settings %s is not among the protected %q", c.Settings, c.Protected)
			}
			if !protects(c.ProjectProtected, c.ProjectSettings) {
				t.Errorf("project settings %s is not among the protected %q", c.ProjectSettings, c.ProjectProtected)
			}
			if c.noMCP == "" && c.MCPConfig == "" {
				t.Errorf("no MCP configuration and no noMCP reason")
			}
			if p := c.ProjectMCPConfig; p != "" && !protects(ProjectProtected(), p) {
				t.Errorf("project MCP configuration %s is not protected", p)
			}
		})
	}
}

// TestTablesNameTheSameClients: every client of the hook's table has an
// install-time row here and every row here is a client of the hook's
// table, so no client is hooked without its files being protected, nor
// installed without a hook that answers it.
func TestTablesNameTheSameClients(t *testing.T) {
	for _, name := range hooks.Clients() {
		t.Run("hooks/"+name, func(t *testing.T) {
			c, err := LookupClient(name)
			if err != nil {
				t.Fatal(err)
			}
			if c.Name != name || c.Title == "" {
				t.Errorf("the row for %s carries the hook's row %+v", name, c.Client)
			}
		})
	}
	for _, c := range configs {
		t.Run("clientconfig/"+c.name, func(t *testing.T) {
			if _, err := hooks.LookupClient(c.name); err != nil {
				t.Errorf("no hook for an install-time row: %v", err)
			}
		})
	}
}

// isMCPField names the row fields a client with MCP servers must fill.
func isMCPField(name string) bool {
	return name == "MCPConfig" || name == "ProjectMCPConfig" || name == "InstallMCP"
}

// protects reports whether path is one of the protected paths or below one.
func protects(protected []string, path string) bool {
	return slices.ContainsFunc(protected, func(p string) bool { return p == path || strings.HasPrefix(path, p+"/") })
}

// TestClientDirs pins where each client's user folder is, with and
// without the variable that moves it.
func TestClientDirs(t *testing.T) {
	const home = "/h"
	tests := []struct {
		client string
		env    map[string]string
		want   string
	}{
		{"claude", nil, "/h/.claude/settings.json"},
		{"claude", map[string]string{"CLAUDE_CONFIG_DIR": "/c"}, "/c/settings.json"},
		{"claude", map[string]string{"CLAUDE_CONFIG_DIR": "rel"}, "/h/.claude/settings.json"},
		{"codex", map[string]string{"CODEX_HOME": "/x/"}, "/x/hooks.json"},
		{"gemini", map[string]string{"GEMINI_CLI_HOME": "/g"}, "/g/.gemini/settings.json"},
		{"cursor", nil, "/h/.cursor/hooks.json"},
		{"pi", map[string]string{"PI_CODING_AGENT_DIR": "/p"}, "/p/extensions/pathgrant.ts"},
		{"copilot", nil, "/h/.copilot/hooks/pathgrant.json"},
		{"copilot", map[string]string{"COPILOT_HOME": "/cp"}, "/cp/hooks/pathgrant.json"},
		{"qwen", nil, "/h/.qwen/settings.json"},
		{"droid", nil, "/h/.factory/hooks.json"},
		{"cline", nil, "/h/.cline/hooks/PreToolUse"},
		{"cline", map[string]string{"CLINE_DIR": "/c"}, "/c/hooks/PreToolUse"},
		{"droid", map[string]string{"FACTORY_HOME_OVERRIDE": "/f"}, "/f/.factory/hooks.json"},
		{"qwen", map[string]string{"QWEN_HOME": "/q"}, "/q/settings.json"},
		{"opencode", nil, "/h/.config/opencode/plugins/pathgrant.js"},
		{"opencode", map[string]string{"XDG_CONFIG_HOME": "/x"}, "/x/opencode/plugins/pathgrant.js"},
		{"opencode", map[string]string{"XDG_CONFIG_HOME": "rel"}, "/h/.config/opencode/plugins/pathgrant.js"},
	}
	for _, tc := range tests {
		t.Run(tc.client, func(t *testing.T) {
			c, err := LookupClient(tc.client)
			if err != nil {
				t.Fatal(err)
			}
			getenv := func(k string) string { return tc.env[k] }
			if got := c.SettingsPath(getenv, home, ""); got != tc.want {
				t.Errorf("settings %s, want %s", got, tc.want)
			}
			if got := GlobalProtected(getenv, home); !protects(got, tc.want) {
				t.Errorf("%s is not protected: %q", tc.want, got)
			}
		})
	}
}

// TestLookupUnknownClient: an unknown client is one clear error.
func TestLookupUnknownClient(t *testing.T) {
	_, err := LookupClient("vim")
	if err == nil || err.Error() != `unknown client "vim" (want `+strings.Join(Clients(), ", ")+`)` {
		t.Errorf("err = %v", err)
	}
}
