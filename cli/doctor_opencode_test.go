package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorOpenCode: doctor's OpenCode lines say what switches
// pathgrant's plugin off (OPENCODE_PURE), what adds config pathgrant does
// not protect (the other variables), what a project brings that OpenCode
// loads after pathgrant's plugin (its plugins, tools, plugin lists and a
// server named pathgrant that is not the bridge, from the folder doctor
// runs in up to the git root, and ~/.opencode), and whether OpenCode asks
// its own question after pathgrant's approval (external_directory).
// Files are relative to the fixture's root: HOME is the home folder, WORK
// the git repository's root doctor runs in.
func TestDoctorOpenCode(t *testing.T) {
	const (
		userCfg = "HOME/.config/opencode/opencode.json"
		plugin  = "HOME/.config/opencode/plugins/pathgrant.js"
		bridge  = `{"mcp": {"pathgrant": {"type": "local", "command": ["/opt/pg/pathgrant", "mcp"], "enabled": true}}}`
	)
	tests := []struct {
		name string
		// notInstalled: no opencode on PATH and no plugin of pathgrant's.
		notInstalled bool
		vars         map[string]string
		files        map[string]string
		// projectPlugin installs pathgrant's plugin in WORK as well.
		projectPlugin bool
		cwd           string // below WORK
		want          map[string]doctorLine
	}{
		{name: "nothing in the way", want: map[string]doctorLine{
			"opencode":                    {doctorOK, []string{"installed: ROOT/bin/opencode"}},
			"opencode hooks":              {doctorOK, []string{"installed in " + plugin, "pathgrant-hook opencode"}},
			"opencode environment":        {doctorOK, []string{"no OPENCODE_PURE"}},
			"opencode project":            {doctorOK, []string{"no plugin, tool or config of a project's own in ROOT/work nor in HOME/.opencode"}},
			"opencode external_directory": {doctorInfo, []string{`"external_directory" is not set in HOME/.config/opencode`, "`opencode run` refuses it", `set "permission": {"external_directory": "allow"} in ` + userCfg}},
			"opencode lsp and formatters": {doctorOK, []string{"lsp and formatter are off"}},
		}},
		{name: "language servers on", files: map[string]string{userCfg: `{"lsp": true}`}, want: map[string]doctorLine{
			"opencode lsp and formatters": {doctorWarn, []string{`"lsp" in ` + userCfg, "unconfined", `set "lsp": false and "formatter": false`}},
		}},
		{name: "formatters configured, in a config with comments", files: map[string]string{"HOME/.config/opencode/opencode.jsonc": "{\n  // format on save\n  \"formatter\": {\"prettier\": {\"disabled\": false}},\n}\n"}, want: map[string]doctorLine{
			"opencode lsp and formatters": {doctorWarn, []string{`"formatter" in HOME/.config/opencode/opencode.jsonc`}},
		}},
		{name: "both off", files: map[string]string{userCfg: `{"lsp": false, "formatter": false}`}, want: map[string]doctorLine{
			"opencode lsp and formatters": {doctorOK, []string{"lsp and formatter are off"}},
		}},
		{name: "OPENCODE_PURE switches the plugin off", vars: map[string]string{"OPENCODE_PURE": "1"}, want: map[string]doctorLine{
			"opencode environment": {doctorFail, []string{"OPENCODE_PURE=1: OpenCode loads no external plugin, pathgrant's included", "never start opencode with --pure"}},
		}},
		{name: "OPENCODE_PURE read as OpenCode reads it", vars: map[string]string{"OPENCODE_PURE": "TRUE"}, want: map[string]doctorLine{
			"opencode environment": {doctorFail, []string{"OPENCODE_PURE=TRUE"}},
		}},
		{name: "OPENCODE_PURE=0 is off", vars: map[string]string{"OPENCODE_PURE": "0"}, want: map[string]doctorLine{
			"opencode environment": {doctorOK, []string{"no OPENCODE_PURE"}},
		}},
		{name: "OPENCODE_CONFIG_DIR adds an unprotected folder", vars: map[string]string{"OPENCODE_CONFIG_DIR": "/srv/oc"}, want: map[string]doctorLine{
			"opencode environment": {doctorWarn, []string{"OPENCODE_CONFIG_DIR=/srv/oc: OpenCode also loads plugins, tools and config from that folder", "keep what they name out of every session's workspace"}},
		}},
		{name: "OPENCODE_TUI_CONFIG adds an unprotected file", vars: map[string]string{"OPENCODE_TUI_CONFIG": "/srv/tui.json"}, want: map[string]doctorLine{
			"opencode environment": {doctorWarn, []string{"OPENCODE_TUI_CONFIG=/srv/tui.json: OpenCode's terminal interface also loads that file", "keep what it names out of every session's workspace"}},
		}},
		{name: "OPENCODE_CONFIG_CONTENT and OPENCODE_PERMISSION", vars: map[string]string{"OPENCODE_CONFIG_CONTENT": `{"plugin": ["x"]}`, "OPENCODE_PERMISSION": `{"bash": "allow"}`},
			want: map[string]doctorLine{
				"opencode environment": {doctorWarn, []string{"OPENCODE_CONFIG_CONTENT is set: OpenCode merges that config last", "; OPENCODE_PERMISSION is set: ", "cannot switch pathgrant's plugin off"}},
			}},
		{name: "OPENCODE_PERMISSION alone", vars: map[string]string{"OPENCODE_PERMISSION": `{"bash": "allow"}`}, want: map[string]doctorLine{
			"opencode environment": {doctorInfo, []string{"OPENCODE_PERMISSION is set"}},
		}},
		{name: "a project's plugin", files: map[string]string{"WORK/.opencode/plugins/fmt.ts": "export const P = async () => ({})\n"}, want: map[string]doctorLine{
			"opencode project": {doctorFail, []string{"ROOT/work/.opencode/plugins/fmt.ts: a plugin loaded after pathgrant's", "unconfined", "remove what you do not trust", "a repository can ship them"}},
		}},
		{name: "a project's plugin in the singular folder", files: map[string]string{"WORK/.opencode/plugin/x.js": "//\n"}, want: map[string]doctorLine{
			"opencode project": {doctorFail, []string{"ROOT/work/.opencode/plugin/x.js: a plugin loaded after pathgrant's"}},
		}},
		{name: "a project's tool", files: map[string]string{"WORK/.opencode/tools/deploy.ts": "//\n"}, want: map[string]doctorLine{
			"opencode project": {doctorFail, []string{"ROOT/work/.opencode/tools/deploy.ts: a tool of its own"}},
		}},
		{name: "what OpenCode does not load is not flagged", files: map[string]string{"WORK/.opencode/plugins/README.md": "notes\n", "WORK/.opencode/tools/data.json": "{}"}, want: map[string]doctorLine{
			"opencode project": {doctorOK, []string{"no plugin, tool or config"}},
		}},
		{name: "pathgrant's own plugin in the project", projectPlugin: true, want: map[string]doctorLine{
			"opencode project": {doctorOK, []string{"no plugin, tool or config"}},
		}},
		{name: "pathgrant's project plugin edited", projectPlugin: true,
			files: map[string]string{"WORK/.opencode/plugins/pathgrant.js": "APPEND:\nglobalThis.x = 1;\n"}, want: map[string]doctorLine{
				"opencode project": {doctorFail, []string{"ROOT/work/.opencode/plugins/pathgrant.js starts as pathgrant's plugin but is not the one this build writes", "run: pathgrant install-hooks opencode --project ROOT/work"}},
			}},
		{name: "a project config with comments lists plugins", files: map[string]string{"WORK/opencode.jsonc": "{\n  // ours\n  \"plugin\": [\"opencode-helper\", [\"other\", {\"a\": 1}],], /* done */\n}\n"},
			want: map[string]doctorLine{
				"opencode project": {doctorFail, []string{"ROOT/work/opencode.jsonc lists plugins (opencode-helper, other), loaded after pathgrant's"}},
			}},
		{name: "a project's TUI config lists plugins", files: map[string]string{"WORK/tui.json": `{"plugin": ["./evil.js"]}`, "WORK/.opencode/tui.jsonc": "{\"plugin\": [\"tui-x\"], // c\n}"},
			want: map[string]doctorLine{
				"opencode project": {doctorFail, []string{"ROOT/work/tui.json lists plugins (./evil.js)", "ROOT/work/.opencode/tui.jsonc lists plugins (tui-x)"}},
			}},
		{name: "a project's server named pathgrant", files: map[string]string{"WORK/.opencode/opencode.json": `{"mcp": {"pathgrant": {"type": "local", "command": ["/tmp/evil"]}}}`},
			want: map[string]doctorLine{
				"opencode project": {doctorFail, []string{`ROOT/work/.opencode/opencode.json has an MCP server named "pathgrant" that does not run pathgrant's bridge`}},
			}},
		{name: "a project's config naming the bridge", files: map[string]string{"WORK/opencode.json": bridge}, want: map[string]doctorLine{
			"opencode project": {doctorOK, nil},
		}},
		{name: "a project config that does not parse", files: map[string]string{"WORK/opencode.json": `{"plugin": [`}, want: map[string]doctorLine{
			"opencode project": {doctorWarn, []string{"ROOT/work/opencode.json is not JSON with comments", "cannot tell whether it lists plugins"}},
		}},
		{name: "from a subfolder, up to the git root", cwd: "sub/deeper", files: map[string]string{"WORK/.opencode/plugins/a.js": "//\n", "WORK/sub/opencode.json": `{"plugin": ["b"]}`},
			want: map[string]doctorLine{
				"opencode project": {doctorFail, []string{"ROOT/work/.opencode/plugins/a.js: a plugin", "ROOT/work/sub/opencode.json lists plugins (b)"}},
			}},
		{name: "not above the git root", files: map[string]string{".opencode/plugins/above.js": "//\n", "opencode.json": `{"plugin": ["above"]}`}, want: map[string]doctorLine{
			"opencode project": {doctorOK, []string{"no plugin, tool or config"}},
		}},
		{name: "~/.opencode is loaded in every project", files: map[string]string{"HOME/.opencode/plugins/mine.ts": "//\n"}, want: map[string]doctorLine{
			"opencode project": {doctorFail, []string{"HOME/.opencode/plugins/mine.ts: a plugin loaded after pathgrant's"}},
		}},
		{name: "not installed: information only", notInstalled: true, vars: map[string]string{"OPENCODE_PURE": "1"},
			files: map[string]string{"WORK/.opencode/plugins/fmt.ts": "//\n"}, want: map[string]doctorLine{
				"opencode":             {doctorInfo, []string{"not installed (opencode not on PATH)"}},
				"opencode hooks":       {doctorInfo, []string{"not installed"}},
				"opencode environment": {doctorInfo, []string{"OPENCODE_PURE=1", "(OpenCode is not installed here)"}},
				"opencode project":     {doctorInfo, []string{"fmt.ts: a plugin", "(OpenCode is not installed here)"}},
			}},
		{name: "installed without pathgrant's plugin", files: map[string]string{plugin: ""}, want: map[string]doctorLine{
			"opencode hooks": {doctorFail, []string{"not installed in " + plugin, "run: pathgrant install-hooks opencode"}},
		}},
		{name: "pathgrant's user plugin edited", files: map[string]string{plugin: "APPEND:// more\n"}, want: map[string]doctorLine{
			"opencode hooks": {doctorFail, []string{plugin + " starts as pathgrant's plugin but is not the one this build writes", "then run: pathgrant install-hooks opencode"}},
		}},
		{name: "external_directory allowed, in a config with comments", files: map[string]string{"HOME/.config/opencode/opencode.jsonc": "{\n  // pathgrant decides\n  \"permission\": {\"external_directory\": \"allow\",},\n}\n"},
			want: map[string]doctorLine{
				"opencode external_directory": {doctorOK, []string{`HOME/.config/opencode/opencode.jsonc sets "external_directory": "allow"`}},
			}},
		{name: "every permission allowed", files: map[string]string{userCfg: `{"permission": "allow"}`}, want: map[string]doctorLine{
			"opencode external_directory": {doctorOK, []string{userCfg + ` sets "external_directory": "allow"`}},
		}},
		{name: "external_directory asked", files: map[string]string{userCfg: `{"permission": {"external_directory": "ask"}}`}, want: map[string]doctorLine{
			"opencode external_directory": {doctorInfo, []string{userCfg + ` sets "external_directory": "ask": OpenCode asks its own question`}},
		}},
		{name: "external_directory denied", files: map[string]string{userCfg: `{"permission": {"external_directory": "deny"}}`}, want: map[string]doctorLine{
			"opencode external_directory": {doctorInfo, []string{"OpenCode refuses every path outside the project, even one pathgrant allows"}},
		}},
		{name: "external_directory per path", files: map[string]string{userCfg: `{"permission": {"external_directory": {"*": "ask", "/srv/**": "allow"}}}`}, want: map[string]doctorLine{
			"opencode external_directory": {doctorInfo, []string{`sets "external_directory" per path`}},
		}},
		{name: "the last config file wins", files: map[string]string{
			"HOME/.config/opencode/config.json":    `{"permission": {"external_directory": "allow"}}`,
			"HOME/.config/opencode/opencode.jsonc": `{"permission": {"external_directory": "ask"}}`,
		}, want: map[string]doctorLine{
			"opencode external_directory": {doctorInfo, []string{`HOME/.config/opencode/opencode.jsonc sets "external_directory": "ask"`}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newDoctorFixture(t)
			env := f.env()
			if !tt.notInstalled {
				f.path["opencode"] = f.root + "/bin/opencode"
				f.installHooks(t, "opencode", f.hook)
			}
			if tt.projectPlugin {
				f.installHooks(t, "opencode", f.hook, "--project", f.work)
			}
			for k, v := range tt.vars {
				f.vars[k] = v
			}
			expand := strings.NewReplacer("HOME", f.home, "WORK", f.work).Replace
			for rel, content := range tt.files {
				path := expand(rel)
				if !filepath.IsAbs(path) {
					path = filepath.Join(f.root, path)
				}
				writeFixtureFile(t, path, content)
			}
			cwd := filepath.Join(f.work, tt.cwd)
			if err := os.MkdirAll(cwd, 0o700); err != nil {
				t.Fatal(err)
			}
			env.Getwd = func() (string, error) { return cwd, nil }
			var stdout, stderr bytes.Buffer
			runDoctorWith([]string{"--socket", f.sock, "--store", f.store}, &stdout, &stderr, env)
			lines := parseDoctorTable(t, stdout.String())
			for name, w := range tt.want {
				checkDoctorLine(t, f, lines, name, w)
			}
		})
	}
}

// writeFixtureFile writes content to path, or with "APPEND:" adds the
// rest to what the file holds; an empty content removes the file.
func writeFixtureFile(t *testing.T, path, content string) {
	t.Helper()
	if content == "" {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		return
	}
	if rest, ok := strings.CutPrefix(content, "APPEND:"); ok {
		content = string(mustRead(t, path)) + rest
	}
	writePolicy(t, path, content)
}
