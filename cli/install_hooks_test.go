package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/hooks/clientconfig"
	"pathgrant/ipc"
	"pathgrant/wire"
)

// installHooksEnv is a temporary home with a fake pathgrant-hook binary.
type installHooksEnv struct {
	home, project, hook string
}

func newInstallHooksEnv(t *testing.T) installHooksEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := installHooksEnv{home: root + "/home", project: root + "/home/proj", hook: root + "/bin/pathgrant-hook"}
	for _, d := range []string{e.project, filepath.Dir(e.hook)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(e.hook, []byte("#!/bin/sh\nexit 2\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", e.home)
	for _, env := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "PI_CODING_AGENT_DIR", "XDG_CONFIG_HOME"} {
		t.Setenv(env, "") // the defaults under HOME, whatever the machine has
	}
	return e
}

// settingsPath is where install-hooks writes client's hook.
func settingsPath(t *testing.T, client, home, project string) string {
	t.Helper()
	c, err := clientconfig.LookupClient(client)
	if err != nil {
		t.Fatal(err)
	}
	return c.SettingsPath(os.Getenv, home, project)
}

func installHooksCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runInstallHooks(args, &out, &errb)
	return code, out.String(), errb.String()
}

func readJSONFile(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return m
}

func backups(t *testing.T, path string) []string {
	t.Helper()
	m, err := filepath.Glob(path + ".pathgrant-backup-*")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// hookCommands lists the commands registered under hooks.<event> in a
// settings document, whether grouped (Claude, Codex, Gemini) or flat
// (Cursor).
func hookCommands(doc map[string]any, event string) []string {
	h, _ := doc["hooks"].(map[string]any)
	list, _ := h[event].([]any)
	var out []string
	for _, item := range list {
		m, _ := item.(map[string]any)
		if c, ok := m["command"].(string); ok {
			out = append(out, c)
		}
		if c, ok := m["bash"].(string); ok { // Copilot's
			out = append(out, c)
		}
		inner, _ := m["hooks"].([]any)
		for _, hk := range inner {
			if c, ok := hk.(map[string]any)["command"].(string); ok {
				out = append(out, c)
			}
		}
	}
	return out
}

// The settings each client already has before install-hooks runs: other
// hooks and settings that must survive, in an order that must be kept.
var existingSettings = map[string]string{
	"claude": `{
  "model": "claude-sonnet-4-5",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/lint-bash", "timeout": 5}]}
    ],
    "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}]
  },
  "permissions": {"allow": ["Bash(go test:*)"]}
}
`,
	"codex": `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}`,
	"gemini": `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "hooks": {"AfterTool": [{"matcher": "write_file", "hooks": [{"name": "fmt", "type": "command", "command": "gofmt -l ."}]}]},
  "ui": {"theme": "GitHub"}
}`,
	"cursor": `{"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}], "beforeShellExecution": [{"command": "./audit.sh"}]}}`,
	"droid":  `{"SessionStart": [{"hooks": [{"type": "command", "command": "./hello.sh"}]}], "PreToolUse": [{"matcher": "Execute", "hooks": [{"type": "command", "command": "./audit.sh", "timeout": 5}]}]}`,
	"qwen":   `{"$version": 4, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./notify.sh"}]}]}, "model": {"name": "qwen3-coder"}}`,
	// pathgrant's own hooks file, to which the person added a hook
	"copilot": `{"version": 1, "hooks": {"postToolUse": [{"type": "command", "bash": "./log.sh", "timeoutSec": 5}]}}`,
}

// events are where each client's pathgrant hook is registered.
var hookEvents = map[string][]string{
	"claude": {"PreToolUse"}, "codex": {"PreToolUse", "PermissionRequest"}, "gemini": {"BeforeTool"},
	"cursor":  {"beforeShellExecution", "beforeReadFile", "beforeMCPExecution"},
	"copilot": {"preToolUse", "sessionEnd"}, "qwen": {"PreToolUse", "SessionEnd"},
	"droid": {"PreToolUse", "SessionEnd"},
}

// readHooksDoc reads a client's settings file as a document with its hooks
// under "hooks": Droid's hooks.json is the hooks object itself.
func readHooksDoc(t *testing.T, client, path string) map[string]any {
	t.Helper()
	doc := readJSONFile(t, path)
	if client == "droid" {
		return map[string]any{"hooks": doc}
	}
	return doc
}

// TestInstallHooksRoundTrip installs into, and uninstalls from, the
// settings file of every client whose hooks live in JSON (Pi's and
// Cline's are files of pathgrant's own: TestInstallHooksOwnFile).
func TestInstallHooksRoundTrip(t *testing.T) {
	for _, client := range clientconfig.Clients() {
		if _, own := ownFileHooks[client]; own {
			continue
		}
		if _, ok := existingSettings[client]; !ok {
			t.Errorf("%s: no existing settings to install into: add a row to existingSettings and hookEvents", client)
			continue
		}
		for _, scope := range []string{"user", "project"} {
			t.Run(client+"/"+scope, func(t *testing.T) {
				e := newInstallHooksEnv(t)
				args := []string{client, "--hook", e.hook, "--socket", e.home + "/run/pathgrant.sock"}
				if scope == "project" {
					args = append(args, "--project", e.project)
				}
				path := settingsPath(t, client, e.home, map[string]string{"project": e.project}[scope])
				ihWriteFile(t, path, existingSettings[client])
				before := readHooksDoc(t, client, path)

				code, out, errs := installHooksCmd(args...)
				if code != 0 || !strings.Contains(out, "installed the pathgrant hook for "+client+" in "+path) {
					t.Fatalf("install: exit %d, %q %q", code, out, errs)
				}
				if b := backups(t, path); len(b) != 1 || string(mustRead(t, b[0])) != existingSettings[client] {
					t.Errorf("backup %v does not hold the previous file", b)
				}
				doc := readHooksDoc(t, client, path)
				want := clientconfig.CommandLine([]string{e.hook, client, "--socket", e.home + "/run/pathgrant.sock"})
				for _, ev := range hookEvents[client] {
					if cmds := hookCommands(doc, ev); !slices.Contains(cmds, want) {
						t.Errorf("hooks.%s: %v, want %q among them", ev, cmds, want)
					}
					if words := clientconfig.CommandWords(want); !slices.Equal(words, []string{e.hook, client, "--socket", e.home + "/run/pathgrant.sock"}) {
						t.Errorf("the command splits into %q", words)
					}
				}
				for k, v := range before { // everything else is kept
					if k == "hooks" {
						continue
					}
					if !reflect.DeepEqual(doc[k], v) {
						t.Errorf("%s changed: %v -> %v", k, v, doc[k])
					}
				}
				bh, _ := before["hooks"].(map[string]any)
				for ev := range bh {
					for _, c := range hookCommands(before, ev) {
						if !slices.Contains(hookCommands(doc, ev), c) {
							t.Errorf("hooks.%s lost %q", ev, c)
						}
					}
				}
				if client == "gemini" {
					if hc, _ := doc["hooksConfig"].(map[string]any); hc["enabled"] != true {
						t.Errorf("hooksConfig.enabled not set: %v", doc["hooksConfig"])
					}
				}
				if client == "claude" && !strings.HasPrefix(string(mustRead(t, path)), "{\n  \"model\"") {
					t.Errorf("key order not kept:\n%s", mustRead(t, path))
				}

				installed := mustRead(t, path)
				if code, out, _ := installHooksCmd(args...); code != 0 || !strings.Contains(out, "already installed") {
					t.Errorf("second install: exit %d %q", code, out)
				}
				if !bytes.Equal(mustRead(t, path), installed) || len(backups(t, path)) != 1 {
					t.Error("a second install changed the file or wrote another backup")
				}

				// A moved binary replaces the entry instead of adding one.
				moved := filepath.Join(filepath.Dir(e.hook), "v2", "pathgrant-hook")
				if err := os.MkdirAll(filepath.Dir(moved), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Link(e.hook, moved); err != nil {
					t.Fatal(err)
				}
				args2 := append([]string{client, "--hook", moved}, args[5:]...)
				if code, _, errs := installHooksCmd(args2...); code != 0 {
					t.Fatalf("reinstall: %s", errs)
				}
				for _, ev := range hookEvents[client] {
					n := 0
					for _, c := range hookCommands(readHooksDoc(t, client, path), ev) {
						if strings.Contains(c, "pathgrant-hook") {
							n++
						}
					}
					if n != 1 {
						t.Errorf("hooks.%s holds %d pathgrant hooks after reinstalling", ev, n)
					}
				}

				un := []string{client, "--uninstall"}
				if scope == "project" {
					un = append(un, "--project", e.project)
				}
				if code, out, errs := installHooksCmd(un...); code != 0 || !strings.Contains(out, "removed the pathgrant hook") {
					t.Fatalf("uninstall: exit %d %q %q", code, out, errs)
				}
				if got := readHooksDoc(t, client, path); !reflect.DeepEqual(got, before) {
					t.Errorf("uninstall left\n%v\nwant the original\n%v", got, before)
				}
				if code, out, _ := installHooksCmd(un...); code != 0 || !strings.Contains(out, "nothing to remove") {
					t.Errorf("second uninstall: exit %d %q", code, out)
				}
			})
		}
	}
}

func ihWriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestInstallHooksNewFile(t *testing.T) {
	e := newInstallHooksEnv(t)
	if code, _, errs := installHooksCmd("claude", "--hook", e.hook); code != 0 {
		t.Fatal(errs)
	}
	path := e.home + "/.claude/settings.json"
	want := "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"*\",\n        \"hooks\": [\n          {\n" +
		"            \"type\": \"command\",\n            \"command\": \"" + e.hook + " claude\",\n            \"timeout\": 60\n" +
		"          }\n        ]\n      }\n    ],\n" +
		"    \"SessionEnd\": [\n      {\n        \"hooks\": [\n          {\n" +
		"            \"type\": \"command\",\n            \"command\": \"" + e.hook + " claude\",\n            \"timeout\": 5\n" +
		"          }\n        ]\n      }\n    ]\n  }\n}\n"
	if got := string(mustRead(t, path)); got != want {
		t.Errorf("new settings file:\n%s\nwant\n%s", got, want)
	}
	if len(backups(t, path)) != 0 {
		t.Error("a backup of a file that did not exist")
	}
	if code, _, _ := installHooksCmd("claude", "--uninstall"); code != 0 || string(mustRead(t, path)) != "{}\n" {
		t.Errorf("after uninstall: %q", mustRead(t, path))
	}
}

// TestInstallHooksCopilotOwnFile: Copilot CLI loads every file in its
// hooks folder, so pathgrant's hooks go in a file of their own, which
// uninstalling removes (an empty file would be a broken hooks file to
// Copilot), keeping its backup; the person's other hooks files are never
// touched.
func TestInstallHooksCopilotOwnFile(t *testing.T) {
	e := newInstallHooksEnv(t)
	dir := e.home + "/.copilot/hooks"
	ihWriteFile(t, dir+"/mine.json", `{"version": 1, "hooks": {}}`)
	if code, _, errs := installHooksCmd("copilot", "--hook", e.hook); code != 0 {
		t.Fatal(errs)
	}
	want := "{\n  \"version\": 1,\n  \"hooks\": {\n" +
		"    \"preToolUse\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"" + e.hook + " copilot\",\n        \"timeoutSec\": 60\n      }\n    ],\n" +
		"    \"sessionEnd\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"" + e.hook + " copilot\",\n        \"timeoutSec\": 5\n      }\n    ]\n  }\n}\n"
	if got := string(mustRead(t, dir+"/pathgrant.json")); got != want {
		t.Errorf("new hooks file:\n%s\nwant\n%s", got, want)
	}
	if code, out, errs := installHooksCmd("copilot", "--uninstall"); code != 0 || !strings.Contains(out, "removed the pathgrant hook") {
		t.Fatalf("uninstall: exit %d %q %q", code, out, errs)
	}
	if _, err := os.Stat(dir + "/pathgrant.json"); !os.IsNotExist(err) {
		t.Errorf("pathgrant's hooks file is still there after uninstall (%v)", err)
	}
	if b := backups(t, dir+"/pathgrant.json"); len(b) != 1 || !strings.Contains(string(mustRead(t, b[0])), "preToolUse") {
		t.Errorf("backups %v, want the installed file", b)
	}
	if got := string(mustRead(t, dir+"/mine.json")); got != `{"version": 1, "hooks": {}}` {
		t.Errorf("another hooks file changed: %q", got)
	}
}

func TestInstallHooksSymlinkedSettings(t *testing.T) {
	e := newInstallHooksEnv(t)
	real := e.home + "/dotfiles/claude-settings.json"
	ihWriteFile(t, real, `{"model": "x"}`)
	if err := os.MkdirAll(e.home+"/.claude", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, e.home+"/.claude/settings.json"); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := installHooksCmd("claude", "--hook", e.hook); code != 0 {
		t.Fatal(errs)
	}
	if fi, err := os.Lstat(e.home + "/.claude/settings.json"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if cmds := hookCommands(readJSONFile(t, real), "PreToolUse"); len(cmds) != 1 {
		t.Errorf("the link's target holds %v", cmds)
	}
}

func TestInstallHooksRefuses(t *testing.T) {
	e := newInstallHooksEnv(t)
	cases := []struct {
		name     string
		args     []string
		settings string // written to the Claude settings first, when set
		code     int
		msg      string
	}{
		{"no client", nil, "", 2, "give exactly one client"},
		{"two clients", []string{"claude", "codex"}, "", 2, "give exactly one client"},
		{"unknown client", []string{"vim"}, "", 2, `unknown client "vim"`},
		{"unknown flag", []string{"claude", "--global"}, "", 2, "flag provided but not defined"},
		{"project not a folder", []string{"claude", "--hook", e.hook, "--project", e.home + "/nope"}, "", 1, "is not a folder"},
		{"hook not executable", []string{"claude", "--hook", e.home + "/nope"}, "", 1, "is not an executable file"},
		{"settings not JSON", []string{"claude", "--hook", e.hook}, "{\"model\": ", 1, "is not valid JSON"},
		{"settings not an object", []string{"claude", "--hook", e.hook}, "[1, 2]", 1, "does not hold a JSON object"},
		{"hooks not an object", []string{"claude", "--hook", e.hook}, `{"hooks": []}`, 1, `"hooks" is not an object`},
	}
	path := e.home + "/.claude/settings.json"
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(path)
			if tc.settings != "" {
				ihWriteFile(t, path, tc.settings)
			}
			code, out, errs := installHooksCmd(tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.msg) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d mentioning %q", code, out, errs, tc.code, tc.msg)
			}
			if tc.settings != "" && string(mustRead(t, path)) != tc.settings {
				t.Error("a refused install changed the file")
			}
		})
	}
}

// ownFileHooks are the clients whose hook is a file of pathgrant's own
// (Pi's extension, Cline's hook script, OpenCode's plugin): where it goes (user, project),
// what marks it, and the line that runs the hook ($HOOK).
var ownFileHooks = map[string]struct {
	user, project, marker, runs string
}{
	"pi":    {".pi/agent/extensions/pathgrant.ts", ".pi/extensions/pathgrant.ts", clientconfig.PiExtensionMarker, `const HOOK = ["$HOOK","pi"];`},
	"cline": {".cline/hooks/PreToolUse", ".cline/hooks/PreToolUse", clientconfig.ClineHookMarker, `out=$($HOOK cline) && [ -n "$out" ] ||`},
	"opencode": {".config/opencode/plugins/pathgrant.js", ".opencode/plugins/pathgrant.js", clientconfig.OpenCodePluginMarker,
		`const HOOK = ["$HOOK","opencode"];`},
}

// TestInstallHooksOwnFile: a client whose hook is a file of pathgrant's
// own gets it written whole, once; uninstall moves it aside; a file of
// that name that is not pathgrant's is never touched.
func TestInstallHooksOwnFile(t *testing.T) {
	for client, own := range ownFileHooks {
		for _, scope := range []string{"user", "project"} {
			t.Run(client+"/"+scope, func(t *testing.T) {
				e := newInstallHooksEnv(t)
				args, un := []string{client, "--hook", e.hook}, []string{client, "--uninstall"}
				path := e.home + "/" + own.user
				if scope == "project" {
					args, un = append(args, "--project", e.project), append(un, "--project", e.project)
					path = e.project + "/" + own.project
				}
				if code, out, errs := installHooksCmd(args...); code != 0 || !strings.Contains(out, "installed") {
					t.Fatalf("exit %d %q %q", code, out, errs)
				}
				data := string(mustRead(t, path))
				if !strings.HasPrefix(data, own.marker) || !strings.Contains(data, strings.ReplaceAll(own.runs, "$HOOK", e.hook)) {
					t.Errorf("hook file:\n%s", data)
				}
				if code, out, _ := installHooksCmd(args...); code != 0 || !strings.Contains(out, "already installed") {
					t.Errorf("second install: %q", out)
				}
				if code, out, _ := installHooksCmd(un...); code != 0 || !strings.Contains(out, "removed") {
					t.Errorf("uninstall: %q", out)
				}
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Error("the hook file is still there")
				}
				ihWriteFile(t, path, "#!/bin/sh\necho mine\n")
				if code, _, errs := installHooksCmd(args...); code != 1 || !strings.Contains(errs, "is not pathgrant's") {
					t.Errorf("a foreign file was not refused: %d %q", code, errs)
				}
				if code, _, _ := installHooksCmd(un...); code != 1 || string(mustRead(t, path)) != "#!/bin/sh\necho mine\n" {
					t.Error("uninstall touched a foreign file")
				}
			})
		}
	}
}

// TestInstalledSettingsAreProtected: every file install-hooks writes is a
// protected path for the daemon, user-wide and in a session's workspace,
// so no session can rewrite the hook that guards it.
func TestInstalledSettingsAreProtected(t *testing.T) {
	e := newInstallHooksEnv(t)
	root := filepath.Dir(e.home)
	store, err := grants.Open(root+"/state/pathgrant.db", grants.Options{MachineID: "m", NoWatch: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sock := root + "/run/pathgrant.sock"
	srv := ipc.New(ipc.Config{HooksBelow: true, Store: store, Home: e.home, Device: engine.DefaultDevicePolicy(os.Getenv, e.home, root+"/state/pathgrant.db", sock),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ln, err := ipc.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	}()
	ctx := context.Background()
	c := apiclient.New(sock)
	sess, err := c.Register(ctx, wire.SessionRequest{Agent: "t", Cwd: e.project, Workspace: []string{e.project}})
	if err != nil {
		t.Fatal(err)
	}
	c.Session, c.Token = sess.ID, sess.Token
	for _, client := range clientconfig.Clients() {
		for _, project := range []string{"", e.project} {
			args := []string{client, "--hook", e.hook}
			if project != "" {
				args = append(args, "--project", project)
			}
			if code, _, errs := installHooksCmd(args...); code != 0 {
				t.Fatalf("%s: %s", client, errs)
			}
			path := settingsPath(t, client, e.home, project)
			for _, op := range []string{"write", "delete"} {
				ans, err := c.Check(ctx, wire.CheckRequest{Op: guard.Op(op), Path: path})
				if err != nil {
					t.Fatal(err)
				}
				if ans.Decision != "deny" || ans.Rule != "protected" {
					t.Errorf("%s %s: %s (%s), want a protected-path deny", op, path, ans.Decision, ans.Reason)
				}
			}
		}
	}
}

// TestInstallHooksGeminiEnabled: Gemini runs hooks only with
// hooksConfig.enabled; install turns it on and uninstall restores it.
func TestInstallHooksGeminiEnabled(t *testing.T) {
	for _, before := range []string{`{}`, `{"hooksConfig": {"enabled": false, "notifications": true}}`, `{"hooksConfig": {"enabled": true}}`} {
		t.Run(before, func(t *testing.T) {
			e := newInstallHooksEnv(t)
			path := e.home + "/.gemini/settings.json"
			ihWriteFile(t, path, before)
			for range 2 { // a second install must remember the first one's note
				if code, _, errs := installHooksCmd("gemini", "--hook", e.hook); code != 0 {
					t.Fatal(errs)
				}
				if hc, _ := readJSONFile(t, path)["hooksConfig"].(map[string]any); hc["enabled"] != true {
					t.Fatalf("hooks not enabled: %v", hc)
				}
			}
			if code, _, errs := installHooksCmd("gemini", "--uninstall"); code != 0 {
				t.Fatal(errs)
			}
			var want map[string]any
			json.Unmarshal([]byte(before), &want)
			if got := readJSONFile(t, path); !reflect.DeepEqual(got, want) {
				t.Errorf("after uninstall %v, want %v", got, want)
			}
		})
	}
}

// TestInstallHooksHonoursClientDirs: a client whose folder an environment
// variable moves gets its hook there, not under the home folder (dflt,
// its folder there).
func TestInstallHooksHonoursClientDirs(t *testing.T) {
	tests := []struct {
		client, env, file, dflt string
	}{
		{client: "claude", env: "CLAUDE_CONFIG_DIR", file: "settings.json", dflt: ".claude"},
		{client: "codex", env: "CODEX_HOME", file: "hooks.json", dflt: ".codex"},
		{client: "opencode", env: "XDG_CONFIG_HOME", file: "opencode/plugins/pathgrant.js", dflt: ".config"},
	}
	for _, tc := range tests {
		t.Run(tc.client, func(t *testing.T) {
			e := newInstallHooksEnv(t)
			dir := filepath.Join(filepath.Dir(e.home), "moved-"+tc.client)
			t.Setenv(tc.env, dir)
			code, out, errs := installHooksCmd(tc.client, "--hook", e.hook)
			want := filepath.Join(dir, tc.file)
			if code != 0 || !strings.Contains(out, "installed the pathgrant hook for "+tc.client+" in "+want) {
				t.Fatalf("exit %d, %q %q; want it installed in %s", code, out, errs, want)
			}
			if _, own := ownFileHooks[tc.client]; own {
				if data := string(mustRead(t, want)); !strings.Contains(data, e.hook) {
					t.Errorf("%s does not run %s:\n%s", want, e.hook, data)
				}
			} else if cmds := hookCommands(readJSONFile(t, want), "PreToolUse"); len(cmds) != 1 || !strings.Contains(cmds[0], e.hook) {
				t.Errorf("%s holds %q", want, cmds)
			}
			if _, err := os.Stat(filepath.Join(e.home, tc.dflt)); !os.IsNotExist(err) {
				t.Errorf("~/%s was created (%v)", tc.dflt, err)
			}
		})
	}
}

// TestInstallHooksOpenCode: pathgrant's OpenCode plugin is written whole,
// exactly as this build makes it for the hook command, beside the
// person's own plugins and config, which install and uninstall leave as
// they were; uninstall moves the plugin aside, so OpenCode no longer loads
// it, and the folder holds what it held before, and the backup.
func TestInstallHooksOpenCode(t *testing.T) {
	tests := []struct {
		name    string
		project bool
		socket  string
	}{
		{name: "user"},
		{name: "user, with a socket", socket: "/run/pg.sock"},
		{name: "project", project: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newInstallHooksEnv(t)
			dir := e.home + "/.config/opencode"
			args, un := []string{"opencode", "--hook", e.hook}, []string{"opencode", "--uninstall"}
			if tt.project {
				dir = e.project + "/.opencode"
				args, un = append(args, "--project", e.project), append(un, "--project", e.project)
			}
			argv := []string{e.hook, "opencode"}
			if tt.socket != "" {
				args, argv = append(args, "--socket", tt.socket), append(argv, "--socket", tt.socket)
			}
			theirs := map[string]string{
				"opencode.json":     `{"$schema": "https://opencode.ai/config.json", "plugin": ["x"]}`,
				"plugins/format.ts": "export const Format = async () => ({})\n",
				"plugin/old.js":     "export const Old = async () => ({})\n",
			}
			for rel, content := range theirs {
				ihWriteFile(t, filepath.Join(dir, rel), content)
			}
			before := listTree(t, dir)
			if code, out, errs := installHooksCmd(args...); code != 0 || !strings.Contains(out, "installed the pathgrant hook for opencode in "+dir+"/plugins/pathgrant.js") {
				t.Fatalf("install: exit %d %q %q", code, out, errs)
			}
			installed := string(mustRead(t, dir+"/plugins/pathgrant.js"))
			if installed != clientconfig.OpenCodePluginFor(argv) {
				t.Errorf("the plugin is not this build's for %q:\n%s", argv, installed)
			}
			if code, out, errs := installHooksCmd(un...); code != 0 || !strings.Contains(out, "removed the pathgrant hook") {
				t.Fatalf("uninstall: exit %d %q %q", code, out, errs)
			}
			after := listTree(t, dir)
			var backup string
			for rel := range after {
				if strings.HasPrefix(rel, "plugins/pathgrant.js.pathgrant-backup-") {
					backup = rel
				}
			}
			if after[backup] != installed {
				t.Errorf("no backup of the installed plugin among %q", slices.Sorted(maps.Keys(after)))
			}
			delete(after, backup)
			if !maps.Equal(after, before) {
				t.Errorf("after uninstall the folder holds\n%q\nwant what it held before\n%q", after, before)
			}
		})
	}
}

// listTree maps each file below dir (relative) to its content.
func listTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(mustRead(t, p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestInstallHooksUnknownClient: an unknown client is a one-line usage
// error, never some other client's settings.
func TestInstallHooksUnknownClient(t *testing.T) {
	e := newInstallHooksEnv(t)
	code, out, errs := installHooksCmd("vim", "--hook", e.hook)
	first, _, _ := strings.Cut(errs, "\n")
	if code != 2 || out != "" || first != `pathgrant install-hooks: unknown client "vim" (want `+strings.Join(clientconfig.Clients(), ", ")+`)` {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if entries, _ := os.ReadDir(e.home); len(entries) != 1 { // only the project folder
		t.Errorf("home holds %v", entries)
	}
}

// TestInstallHooksProjectNote: installing a project's hooks for a client
// that runs them only once the project is trusted (Codex) ends with a
// line saying so; the user's hooks, an uninstall and the other clients
// print no such line.
func TestInstallHooksProjectNote(t *testing.T) {
	const note = "Codex runs a project's hooks only once you trust the project in Codex"
	tests := []struct {
		name      string
		client    string
		project   bool
		uninstall bool
		want      bool
	}{
		{"codex project", "codex", true, false, true},
		{"codex project uninstall", "codex", true, true, false},
		{"codex user", "codex", false, false, false},
		{"claude project", "claude", true, false, false},
		{"gemini project", "gemini", true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newInstallHooksEnv(t)
			args := []string{tt.client, "--hook", e.hook}
			if tt.project {
				args = append(args, "--project", e.project)
			}
			if tt.uninstall {
				if code, out, errs := installHooksCmd(args...); code != 0 {
					t.Fatalf("install: exit %d, %q %q", code, out, errs)
				}
				args = append(args, "--uninstall")
			}
			code, out, errs := installHooksCmd(args...)
			if code != 0 {
				t.Fatalf("exit %d, %q %q", code, out, errs)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if got := strings.Contains(out, note); got != tt.want {
				t.Errorf("note printed %v, want %v: %q", got, tt.want, out)
			}
			if tt.want && (len(lines) < 2 || !strings.HasPrefix(lines[len(lines)-1], note)) {
				t.Errorf("want the report, then the note last on its own line: %q", out)
			}
		})
	}
}

// TestInstallHooksReport: install-hooks says which file it changed (or
// that nothing changed), the hooks it added or removed, what the hook now
// does with the client's tools that are not file accesses (as the device
// policy says), and what to do next. A line ending in "…" is a prefix.
func TestInstallHooksReport(t *testing.T) {
	const (
		claudeHooks = "PreToolUse (every tool, timeout 60 s) and SessionEnd"
		claudeNext  = "restart Claude Code (quit each running claude and start it again)"
		claudeTools = `tools pathgrant cannot map to files are denied (unmapped_tools = "ask-client" in $POLICY leaves them to Claude Code); ` +
			"those that touch no local file, such as WebSearch, are left to Claude Code"
	)
	type step struct {
		uninstall bool
		want      []string
	}
	tests := []struct {
		name, client, policy string
		project              bool
		steps                []step
	}{
		{name: "claude install, again, uninstall, again", client: "claude", steps: []step{
			{false, []string{"installed the pathgrant hook for claude in $FILE", "hooks added: " + claudeHooks, claudeTools,
				"next: " + claudeNext + " so it loads the hook"}},
			{false, []string{"the pathgrant hook for claude is already installed in $FILE", "hooks: " + claudeHooks, claudeTools,
				"next: nothing changed; if Claude Code was started before the hook was installed, " + claudeNext + " so it loads the hook"}},
			{true, []string{"removed the pathgrant hook for claude from $FILE (previous file saved as $FILE.pathgrant-backup-…",
				"hooks removed: " + claudeHooks, "next: " + claudeNext + " so it stops running the hook"}},
			{true, []string{"no pathgrant hook for claude in $FILE: nothing to remove"}},
		}},
		{name: "gemini under ask-client", client: "gemini", policy: "unmapped_tools = \"ask-client\"\n", steps: []step{
			{false, []string{"installed the pathgrant hook for gemini in $FILE",
				"hooks added: BeforeTool (every tool, timeout 60000 ms) and SessionEnd, with hooksConfig.enabled on",
				`tools pathgrant cannot map to files are left to Gemini CLI's own permission flow (unmapped_tools = "ask-client" in $POLICY); ` +
					"those that touch no local file, such as google_web_search, are left to Gemini CLI",
				"next: restart Gemini CLI (quit each running gemini and start it again) so it loads the hook"}},
		}},
		{name: "codex project: the trust note comes last", client: "codex", project: true, steps: []step{
			{false, []string{"installed the pathgrant hook for codex in $FILE",
				"hooks added: PreToolUse and PermissionRequest (every tool, timeout 60 s) and SessionEnd, trusted in config.toml",
				`tools pathgrant cannot map to files are denied (unmapped_tools = "ask-client" in $POLICY leaves them to Codex); ` +
					"those that touch no local file, such as web_search, are left to Codex",
				"next: restart Codex (quit each running codex and start it again) so it loads the hook",
				"Codex runs a project's hooks only once you trust the project in Codex: open codex in it and choose to trust it"}},
		}},
		{name: "pi blocks what it cannot map, whatever the policy", client: "pi", policy: "unmapped_tools = \"ask-client\"\n", steps: []step{
			{false, []string{"installed the pathgrant hook for pi in $FILE",
				"hooks added: the extension, which sends every tool_call to the hook and ends the session on session_shutdown",
				"tools pathgrant cannot map to files are blocked: Pi has no permission flow of its own to leave them to",
				"next: run /reload in each running Pi (or restart it) so it loads the hook"}},
		}},
		{name: "opencode: a plugin, restarted to load it", client: "opencode", steps: []step{
			{false, []string{"installed the pathgrant hook for opencode in $FILE",
				"hooks added: the plugin, which sends every tool call (tool.execute.before) to the hook; the session is one per OpenCode process and ends with it",
				`tools pathgrant cannot map to files are denied (unmapped_tools = "ask-client" in $POLICY leaves them to OpenCode); ` +
					"those that touch no local file, such as websearch, are left to OpenCode",
				"next: restart OpenCode (quit each running opencode and start it again) so it loads the hook"}},
			{true, []string{"removed the pathgrant hook for opencode from $FILE (previous file saved as $FILE.pathgrant-backup-…",
				"hooks removed: the plugin, which sends every tool call (tool.execute.before) to the hook; the session is one per OpenCode process and ends with it",
				"next: restart OpenCode (quit each running opencode and start it again) so it stops running the hook"}},
		}},
		{name: "cursor names no tool of its own", client: "cursor", steps: []step{
			{false, []string{"installed the pathgrant hook for cursor in $FILE",
				"hooks added: beforeShellExecution, beforeReadFile and beforeMCPExecution (timeout 60 s, failClosed) and sessionEnd",
				"next: restart Cursor so it loads the hook"}},
		}},
		{name: "a refused policy is said", client: "claude", policy: "# mine\nunmapped_tools = \"allow\"\n", steps: []step{
			{false, []string{"installed the pathgrant hook for claude in $FILE", "hooks added: " + claudeHooks,
				`the device policy is refused (a running daemon keeps the last good one, a new one does not start) until it is fixed: device policy $POLICY: line 2: unmapped_tools: "allow" is neither "ask-client" nor "deny"`,
				"next: " + claudeNext + " so it loads the hook"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newInstallHooksEnv(t)
			t.Setenv("XDG_CONFIG_HOME", "")
			policy := filepath.Join(e.home, ".config/pathgrant/policy.toml")
			if tt.policy != "" {
				if err := os.MkdirAll(filepath.Dir(policy), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(policy, []byte(tt.policy), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			args, project := []string{tt.client, "--hook", e.hook}, ""
			if tt.project {
				args, project = append(args, "--project", e.project), e.project
			}
			expand := strings.NewReplacer("$FILE", settingsPath(t, tt.client, e.home, project), "$POLICY", policy).Replace
			for i, st := range tt.steps {
				a := args
				if st.uninstall {
					a = append(slices.Clone(args), "--uninstall")
				}
				code, out, errs := installHooksCmd(a...)
				if code != 0 || errs != "" || !strings.HasSuffix(out, "\n") {
					t.Fatalf("step %d: exit %d, stdout %q, stderr %q", i, code, out, errs)
				}
				got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				if len(got) != len(st.want) {
					t.Fatalf("step %d: %d lines, want %d:\n%s", i, len(got), len(st.want), out)
				}
				for j, w := range st.want {
					w = expand(w)
					prefix, isPrefix := strings.CutSuffix(w, "…")
					if isPrefix && !strings.HasPrefix(got[j], prefix) || !isPrefix && got[j] != w {
						t.Errorf("step %d line %d:\n got %s\nwant %s", i, j+1, got[j], w)
					}
				}
			}
		})
	}
}
