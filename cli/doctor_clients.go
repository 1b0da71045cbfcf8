package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"pathgrant/appdirs"
	"pathgrant/hooks/clientconfig"
)

// clientCommands are the commands each agent client is started with, to
// tell whether it is installed.
var clientCommands = map[string][]string{
	"claude": {"claude"}, "codex": {"codex"}, "gemini": {"gemini"}, "cursor": {"cursor-agent", "cursor"}, "pi": {"pi"},
	"copilot": {"copilot"}, "qwen": {"qwen"}, "droid": {"droid"}, "cline": {"cline"},
	"opencode": {"opencode"},
}

// clientChecks report this build's hook binary, then for each agent
// client whether it is installed, whether its hooks are and run this
// build's hook, and whether its MCP configuration names pathgrant.
func clientChecks(env doctorEnv) []doctorCheck {
	home, err := appdirs.Home(env.Getenv)
	if err != nil {
		return []doctorCheck{{Name: "agents", Status: doctorFail, Detail: oneLine(err.Error()), Fix: "set HOME"}}
	}
	hook, hookCheck := thisHook(env)
	out := []doctorCheck{hookCheck}
	for _, name := range clientconfig.Clients() {
		c, err := clientconfig.LookupClient(name)
		if err != nil {
			continue
		}
		installed := clientInstalled(env, name)
		out = append(out, installedCheck(name, installed), hooksCheck(env, c, home, installed != "", hook))
		if name == "codex" {
			out = append(out, codexChecks(env, c, home)...)
		}
		if name == "opencode" {
			out = append(out, opencodeChecks(env, c, home, installed != "")...)
		}
		if d, ok := hooksSwitchCheck(env, c, home); ok {
			out = append(out, d)
		}
		out = append(out, mcpCheck(env, c, home))
	}
	return out
}

// thisHook finds the pathgrant-hook install-hooks would register: next to
// this binary, else on PATH.
func thisHook(env doctorEnv) (string, doctorCheck) {
	c := doctorCheck{Name: "pathgrant-hook"}
	p, dir := findCompanion(env, "pathgrant-hook")
	if p != "" {
		c.Status, c.Detail = doctorOK, p
		return p, c
	}
	c.Status, c.Detail = doctorFail, "not found next to pathgrant or on PATH: agents' hooks cannot run"
	c.Fix = "build it: CGO_ENABLED=0 go build -o " + dir + "/ ./cmd/pathgrant-hook"
	return "", c
}

// findCompanion finds one of pathgrant's other binaries as the hook does:
// next to this binary, else on PATH. It returns "" when there is none, and
// the folder it should be in.
func findCompanion(env doctorEnv, name string) (path, dir string) {
	dir = "DIR"
	if exe, err := env.Executable(); err == nil {
		dir = filepath.Dir(exe)
		p := filepath.Join(dir, name)
		if fi, err := env.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, dir
		}
	}
	if p, err := env.LookPath(name); err == nil {
		return p, dir
	}
	return "", dir
}

// clientInstalled is the client's command on PATH, or "".
func clientInstalled(env doctorEnv, name string) string {
	for _, cmd := range clientCommands[name] {
		if p, err := env.LookPath(cmd); err == nil {
			return p
		}
	}
	return ""
}

func installedCheck(name, path string) doctorCheck {
	if path == "" {
		return doctorCheck{Name: name, Status: doctorInfo, Detail: "not installed (" + strings.Join(clientCommands[name], ", ") + " not on PATH)"}
	}
	return doctorCheck{Name: name, Status: doctorOK, Detail: "installed: " + path}
}

// hooksCheck reads the client's user settings for the pathgrant hook and
// checks that it runs this build's pathgrant-hook. Missing hooks are a
// problem only for a client that is installed.
func hooksCheck(env doctorEnv, c clientconfig.Client, home string, installed bool, hook string) doctorCheck {
	d := doctorCheck{Name: c.Name + " hooks"}
	fix := "run: pathgrant install-hooks " + c.Name
	file := c.SettingsPath(env.Getenv, home, "")
	argv, err := installedHook(env, c.Name, file)
	switch {
	case err != nil:
		d.Status, d.Detail, d.Fix = doctorFail, oneLine(err.Error()), "correct or move aside "+file+", then "+fix
	case argv == nil && installed:
		d.Status, d.Detail, d.Fix = doctorFail, "not installed in "+file, fix
	case argv == nil:
		d.Status, d.Detail = doctorInfo, "not installed"
	default:
		return hookTarget(env, d, file, argv, hook, fix)
	}
	return d
}

// hookTarget checks that the registered hook command exists and is this
// build's pathgrant-hook, so a moved or rebuilt binary is noticed.
func hookTarget(env doctorEnv, d doctorCheck, file string, argv []string, hook, fix string) doctorCheck {
	path := argv[0]
	if !filepath.IsAbs(path) {
		if p, err := env.LookPath(path); err == nil {
			path = p
		}
	}
	fi, err := env.Stat(path)
	if err != nil {
		d.Status, d.Detail, d.Fix = doctorFail, fmt.Sprintf("%s runs %s, which does not exist", file, argv[0]), fix
		return d
	}
	if hook != "" {
		if hfi, err := env.Stat(hook); err == nil && !os.SameFile(fi, hfi) {
			d.Status, d.Fix = doctorFail, fix
			d.Detail = fmt.Sprintf("%s runs %s, not this build's %s", file, path, hook)
			return d
		}
	}
	d.Status, d.Detail = doctorOK, fmt.Sprintf("installed in %s: %s", file, clientconfig.CommandLine(argv))
	return d
}

// installedHook returns the pathgrant hook command registered in a
// client's settings file, nil when there is none (or no file).
func installedHook(env doctorEnv, client, file string) ([]string, error) {
	data, err := env.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", file, err)
	case client == "pi":
		return ownFileHookArgv(file, data, clientconfig.PiExtensionMarker, "extension")
	case client == "opencode":
		return opencodePluginArgv(file, data)
	case client == "cline":
		if !strings.HasPrefix(string(data), clientconfig.ClineHookMarker) {
			return nil, nil
		}
		if argv := clientconfig.ClineHookArgv(string(data)); argv != nil {
			return argv, nil
		}
		return nil, fmt.Errorf("%s: no hook command in pathgrant's hook script", file)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %w", file, err)
	}
	return findHookCommand(doc, client), nil
}

// findHookCommand walks a settings document for a "command" that runs
// `pathgrant-hook CLIENT`, the entries install-hooks writes.
func findHookCommand(v any, client string) []string {
	switch v := v.(type) {
	case map[string]any:
		if cmd, ok := v["command"].(string); ok {
			if w := clientconfig.CommandWords(cmd); len(w) >= 2 && filepath.Base(w[0]) == "pathgrant-hook" && w[1] == client {
				return w
			}
		}
		for _, x := range v {
			if w := findHookCommand(x, client); w != nil {
				return w
			}
		}
	case []any:
		for _, x := range v {
			if w := findHookCommand(x, client); w != nil {
				return w
			}
		}
	}
	return nil
}

// ownFileHookArgv reads the hook argv from a file of pathgrant's own
// that starts with marker (Pi's extension, OpenCode's plugin), where
// install-hooks wrote it as a JSON array (`const HOOK = [...];`); what
// names the file in an error. A file without the marker is not
// pathgrant's: no hook, no error.
func ownFileHookArgv(file string, data []byte, marker, what string) ([]string, error) {
	if !strings.HasPrefix(string(data), marker) {
		return nil, nil
	}
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "const HOOK = ")
		if !ok {
			continue
		}
		var argv []string
		if err := json.Unmarshal([]byte(strings.TrimSuffix(rest, ";")), &argv); err != nil || len(argv) == 0 {
			return nil, fmt.Errorf("%s: unreadable hook command %q", file, rest)
		}
		return argv, nil
	}
	return nil, fmt.Errorf("%s: no hook command in pathgrant's %s", file, what)
}

// opencodePluginArgv is ownFileHookArgv for OpenCode's plugin, which must
// also be exactly the plugin this build writes for that argv: the plugin
// is code OpenCode runs, so an edited one (or an older pathgrant's) is
// not taken for pathgrant's.
func opencodePluginArgv(file string, data []byte) ([]string, error) {
	argv, err := ownFileHookArgv(file, data, clientconfig.OpenCodePluginMarker, "plugin")
	if err != nil || argv == nil {
		return argv, err
	}
	if string(data) != clientconfig.OpenCodePluginFor(argv) {
		return nil, fmt.Errorf("%s starts as pathgrant's plugin but is not the one this build writes (edited, or an older pathgrant's)", file)
	}
	return argv, nil
}

// mcpCheck says whether the client's MCP configuration (where the client
// table says it is) registers the pathgrant server, the bridge.
// Informational: the hooks are what guards the client's own tools.
func mcpCheck(env doctorEnv, c clientconfig.Client, home string) doctorCheck {
	d := doctorCheck{Name: c.Name + " mcp", Status: doctorInfo}
	file := c.MCPPath(env.Getenv, home, "")
	if file == "" {
		d.Detail = "no MCP configuration for " + c.Name
		return d
	}
	data, err := env.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		d.Detail = fmt.Sprintf("cannot read %s: %s", file, oneLine(err.Error()))
		return d
	}
	if err == nil && c.BridgeConfigured(data) {
		d.Status, d.Detail = doctorOK, "pathgrant server configured in "+file
		return d
	}
	d.Detail = "no pathgrant server in " + file + ": pathgrant install-mcp " + c.Name + " registers it"
	return d
}

// hooksSwitch is, for each client whose user settings can switch every
// hook off (pathgrant's included), where: a file relative to the client's
// folder and the key holding true. A project's settings can do the same
// (Claude Code's, Copilot CLI's in a trusted folder, Qwen Code's and
// Droid's in any): pathgrant protects them from sessions, but a
// repository may ship one.
var hooksSwitch = map[string][]switchAt{
	"claude":  {{"settings.json", []string{"disableAllHooks"}}},
	"copilot": {{"settings.json", []string{"disableAllHooks"}}},
	"qwen":    {{"settings.json", []string{"disableAllHooks"}}},
	"droid":   {{"hooks.json", []string{"hooksDisabled"}}, {"settings.json", []string{"hooks", "hooksDisabled"}}},
}

// switchAt is one place a client's hooks are switched off: key (a path
// into the JSON document) set to true in file.
type switchAt struct {
	file string
	key  []string
}

// hooksSwitchCheck says whether the client's user settings switch every
// hook off; ok is false for a client without such a switch.
func hooksSwitchCheck(env doctorEnv, c clientconfig.Client, home string) (d doctorCheck, ok bool) {
	places, ok := hooksSwitch[c.Name]
	if !ok {
		return d, false
	}
	var read []string
	for _, at := range places {
		file := filepath.Join(c.Dir(env.Getenv, home), at.file)
		data, err := env.ReadFile(file)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return doctorCheck{Name: c.Name + " hooks switch", Status: doctorFail, Detail: fmt.Sprintf("cannot read %s: %s", file, oneLine(err.Error()))}, true
		}
		read = append(read, file)
		var v any
		if json.Unmarshal(data, &v) != nil {
			return doctorCheck{Name: c.Name + " hooks switch", Status: doctorInfo, Detail: file + " is not plain JSON: cannot tell whether it switches hooks off"}, true
		}
		for _, k := range at.key {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		if v == true {
			key := strings.Join(at.key, ".")
			return doctorCheck{Name: c.Name + " hooks switch", Status: doctorFail, Fix: "remove \"" + key + "\" from " + file,
				Detail: file + " sets \"" + key + "\": true: " + c.Title + " runs no hook, pathgrant's included"}, true
		}
	}
	if len(read) == 0 {
		return doctorCheck{Name: c.Name + " hooks switch", Status: doctorOK, Detail: "no settings switch hooks off"}, true
	}
	return doctorCheck{Name: c.Name + " hooks switch", Status: doctorOK, Detail: "hooks not switched off in " + strings.Join(read, ", ")}, true
}

// codexRequirements is where an administrator's requirements for Codex
// live; they override the user's config.toml.
const codexRequirements = "/etc/codex/requirements.toml"

// codexChecks are the Codex lines that matter once pathgrant's hook is in
// its hooks.json, since Codex skips a hook without a word: whether the
// hooks feature is on (the user's config.toml and the administrator's
// requirements), and whether config.toml trusts each pathgrant hook with
// the hash of the hook as installed.
func codexChecks(env doctorEnv, c clientconfig.Client, home string) []doctorCheck {
	file := c.SettingsPath(env.Getenv, home, "")
	if argv, err := installedHook(env, c.Name, file); err != nil || argv == nil {
		return nil // the hooks line says what is wrong
	}
	cfg := filepath.Join(filepath.Dir(file), "config.toml")
	doc, err := readCodexConfig(env, cfg)
	if err != nil {
		return []doctorCheck{{Name: "codex config", Status: doctorFail, Detail: oneLine(err.Error()),
			Fix: "correct " + cfg + ", then run: pathgrant install-hooks codex"}}
	}
	req, err := readCodexConfig(env, codexRequirements)
	if err != nil {
		req = nil // an unreadable requirements file is reported by the feature line
	}
	return []doctorCheck{codexFeatureCheck(doc, req, cfg, err), codexTrustCheck(doc, file, cfg)}
}

// readCodexConfig parses a Codex TOML file; a missing file is empty.
func readCodexConfig(env doctorEnv, path string) (map[string]any, error) {
	data, err := env.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	doc := map[string]any{}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil, fmt.Errorf("%s is not valid TOML: %w", path, err)
	}
	return doc, nil
}

// codexHooksOff reports which key of doc's [features] switches hooks off
// (hooks, or its deprecated alias codex_hooks), "" when none does.
func codexHooksOff(doc map[string]any) string {
	features, _ := doc["features"].(map[string]any)
	for _, k := range []string{"hooks", "codex_hooks"} {
		if on, ok := features[k].(bool); ok && !on {
			return "[features] " + k + " = false"
		}
	}
	return ""
}

// codexFeatureCheck says whether Codex runs hooks at all: the user's
// config.toml may switch them off, and the administrator's requirements
// may force them off or allow only managed hooks.
func codexFeatureCheck(doc, req map[string]any, cfg string, reqErr error) doctorCheck {
	d := doctorCheck{Name: "codex hooks feature", Status: doctorFail}
	managedOnly, _ := req["allow_managed_hooks_only"].(bool)
	switch {
	case reqErr != nil:
		d.Detail = "cannot tell whether an administrator switched Codex's hooks off: " + oneLine(reqErr.Error())
		d.Fix = "ask your administrator to correct " + codexRequirements
	case codexHooksOff(req) != "":
		d.Detail = codexRequirements + " sets " + codexHooksOff(req) + ": Codex runs no hook, pathgrant's included"
		d.Fix = "ask your administrator to remove that line from " + codexRequirements
	case managedOnly:
		d.Detail = codexRequirements + " sets allow_managed_hooks_only = true: Codex skips the hooks in your hooks.json"
		d.Fix = "ask your administrator to add pathgrant's hook to the managed hooks, or to allow user hooks"
	case codexHooksOff(doc) != "":
		d.Detail = cfg + " sets " + codexHooksOff(doc) + ": Codex runs no hook, pathgrant's included"
		d.Fix = "run: pathgrant install-hooks codex (it switches the feature on), or set it to true in " + cfg
	default:
		d.Status, d.Detail = doctorOK, "on (not switched off in "+cfg+" nor in "+codexRequirements+")"
	}
	return d
}

// codexTrustCheck compares the hooks.state entries of config.toml with
// the trust each installed pathgrant hook needs (clientconfig.CodexTrusts, the
// keys and hashes install-hooks writes): a missing or stale entry makes
// Codex skip the hook.
func codexTrustCheck(doc map[string]any, hooksFile, cfg string) doctorCheck {
	d := doctorCheck{Name: "codex hook trust", Status: doctorFail, Fix: "run: pathgrant install-hooks codex (it writes the trust entries into " + cfg + ")"}
	want, err := clientconfig.CodexTrusts(hooksFile)
	if err != nil {
		d.Detail = oneLine(err.Error())
		return d
	}
	hooksTable, _ := doc["hooks"].(map[string]any)
	state, _ := hooksTable["state"].(map[string]any)
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		entry, _ := state[key].(map[string]any)
		got, _ := entry["trusted_hash"].(string)
		switch {
		case entry == nil:
			d.Detail = fmt.Sprintf("no trust entry for %s in %s: Codex skips that hook", key, cfg)
			return d
		case got != want[key]:
			d.Detail = fmt.Sprintf("%s trusts %s with %s, but the hook as installed hashes to %s: Codex skips it", cfg, key, got, want[key])
			return d
		}
	}
	d.Status, d.Fix = doctorOK, ""
	d.Detail = fmt.Sprintf("%d pathgrant hooks trusted in %s with their current hashes", len(keys), cfg)
	return d
}
