package cli

import (
	"os"
	"path/filepath"
	"reflect"
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
		xdg                   string // XDG_CONFIG_HOME, relative to home
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
		{client: "opencode", want: ".config/opencode/opencode.json"},
		{client: "opencode", project: "w", want: "w/opencode.json"},
		{client: "opencode", xdg: "xdg", want: "xdg/opencode/opencode.json"},
	}
	for _, tt := range tests {
		t.Run(tt.client+"/"+tt.want, func(t *testing.T) {
			home := t.TempDir()
			env := map[string]string{"HOME": home}
			if tt.xdg != "" {
				env["XDG_CONFIG_HOME"] = filepath.Join(home, tt.xdg)
			}
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

// TestInstallMCPOpenCode: the bridge goes into the "mcp" object of
// OpenCode's opencode.json as a local server started with its command
// line; uninstalling right after puts the file back as it was, byte for
// byte; an opencode.json that already names another server pathgrant,
// or that holds comments (which install-mcp cannot keep), is refused and
// left as it was.
func TestInstallMCPOpenCode(t *testing.T) {
	const mine = "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"model\": \"fake/m\",\n" +
		"  \"mcp\": {\"fs\": {\"type\": \"local\", \"command\": [\"npx\", \"fs\"]}},\n  \"plugin\": [\"x\"]\n}\n"
	tests := []struct {
		name, before string
		refused      string // the error's words; "" when install works
	}{
		{name: "no file"},
		{name: "the person's config", before: mine},
		{name: "another server named pathgrant", before: `{"mcp": {"pathgrant": {"type": "local", "command": ["/tmp/evil", "mcp"]}}}`,
			refused: `has a server "pathgrant" that is not pathgrant's bridge`},
		{name: "a remote server named pathgrant", before: `{"mcp": {"pathgrant": {"type": "remote", "url": "http://127.0.0.1:1/mcp"}}}`,
			refused: "that is not pathgrant's bridge"},
		{name: "comments", before: "{\n  // mine\n  \"model\": \"fake/m\"\n}\n", refused: "is not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
			file := filepath.Join(home, ".config/opencode/opencode.json")
			if tt.before != "" {
				ihWriteFile(t, file, tt.before)
			}
			a := installArgs{client: "opencode"}
			msg, err := installMCP(a, "/opt/pg/pathgrant", getenv)
			if tt.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refused) {
					t.Errorf("install: %q, %v; want a refusal saying %q", msg, err, tt.refused)
				}
				if got := string(mustRead(t, file)); got != tt.before {
					t.Errorf("a refused install changed the file:\n%s", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("install: %v", err)
			}
			doc := readJSONFile(t, file)
			entry, _ := doc["mcp"].(map[string]any)["pathgrant"].(map[string]any)
			if !reflect.DeepEqual(entry, map[string]any{"type": "local", "command": []any{"/opt/pg/pathgrant", "mcp"}, "enabled": true}) {
				t.Errorf("mcp.pathgrant is %v", entry)
			}
			a.uninstall = true
			if _, err := installMCP(a, "/opt/pg/pathgrant", getenv); err != nil {
				t.Fatalf("uninstall: %v", err)
			}
			got, err := os.ReadFile(file)
			switch {
			case tt.before == "" && !os.IsNotExist(err):
				t.Errorf("uninstall left the file install created (%v):\n%s", err, got)
			case tt.before != "" && string(got) != tt.before:
				t.Errorf("uninstall left\n%s\nwant the file as it was\n%s", got, tt.before)
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
