package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pathgrant/hooks/clientconfig"
)

// TestInstallMCP registers the bridge for each client where the client
// table says, then removes it, leaving no file behind that install made.
func TestInstallMCP(t *testing.T) {
	tests := []struct {
		client, project, want string // want: the file, relative to home (or to the project)
	}{
		{client: "claude", want: ".claude.json"},
		{client: "claude", project: "w", want: "w/.mcp.json"},
		{client: "codex", want: ".codex/config.toml"},
		{client: "gemini", want: ".gemini/settings.json"},
		{client: "cursor", want: ".cursor/mcp.json"},
		{client: "cursor", project: "w", want: "w/.cursor/mcp.json"},
		{client: "copilot", want: ".copilot/mcp-config.json"},
		{client: "qwen", want: ".qwen/settings.json"},
		{client: "droid", want: ".factory/mcp.json"},
		{client: "cline", want: ".cline/data/settings/cline_mcp_settings.json"},
	}
	for _, tt := range tests {
		t.Run(tt.client+"/"+tt.want, func(t *testing.T) {
			home := t.TempDir()
			env := map[string]string{"HOME": home}
			getenv := func(k string) string { return env[k] }
			a := installArgs{client: tt.client, socket: "/run/pg.sock"}
			if tt.project != "" {
				a.project = filepath.Join(home, tt.project)
				if err := os.MkdirAll(a.project, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			file := filepath.Join(home, tt.want)
			msg, err := installMCP(a, "/opt/pg/pathgrant", getenv)
			if err != nil || !strings.Contains(msg, "registered the pathgrant MCP server for "+tt.client+" in "+file) {
				t.Fatalf("install: %q, %v", msg, err)
			}
			data, err := os.ReadFile(file)
			if err != nil || !strings.Contains(string(data), "/opt/pg/pathgrant") || !strings.Contains(string(data), "/run/pg.sock") {
				t.Fatalf("%s: %v\n%s", file, err, data)
			}
			if msg, _ := installMCP(a, "/opt/pg/pathgrant", getenv); !strings.Contains(msg, "already registered") {
				t.Errorf("second install: %q", msg)
			}
			a.uninstall = true
			if msg, err := installMCP(a, "/opt/pg/pathgrant", getenv); err != nil || !strings.Contains(msg, "removed") {
				t.Fatalf("uninstall: %q, %v", msg, err)
			}
			if _, err := os.Stat(file); !os.IsNotExist(err) {
				t.Errorf("uninstall left %s: %v", file, err)
			}
		})
	}
}

// TestInstallMCPUsage refuses what it cannot do.
func TestInstallMCPUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"pi"}, {"vim"}, {"claude", "codex"}} {
		if _, err := parseInstallMCPArgs(args); err == nil {
			t.Errorf("%q: no usage error", args)
		}
	}
}

// TestInstallMCPUsageNamesItsClients: the usage line and the command's
// summary name exactly the clients install-mcp accepts, so neither falls
// behind the client table again.
func TestInstallMCPUsageNamesItsClients(t *testing.T) {
	for _, name := range clientconfig.Clients() {
		t.Run(name, func(t *testing.T) {
			_, err := parseInstallMCPArgs([]string{name})
			accepted := err == nil
			list := strings.Fields(installMCPUsage())[3] // usage: pathgrant install-mcp A|B|C ...
			named := slices.Contains(strings.Split(list, "|"), name) &&
				strings.HasSuffix(commands(nil)["install-mcp"].summary, ": "+list)
			if accepted != named {
				t.Errorf("install-mcp %s: accepted %v (%v), named in the usage and summary %v", name, accepted, err, named)
			}
		})
	}
}
