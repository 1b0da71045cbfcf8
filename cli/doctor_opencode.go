package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"pathgrant/hooks"
	"pathgrant/hooks/clientconfig"
)

// OpenCode loads pathgrant's plugin into its own process, beside every
// other plugin it finds. Nothing in OpenCode's permission settings can
// switch a plugin off, but its environment can (--pure, OPENCODE_PURE),
// and a project can bring code of its own that OpenCode loads after
// pathgrant's plugin: these lines say what doctor finds of either, and
// whether OpenCode asks its own question after pathgrant's approval.

// opencodeChecks are OpenCode's lines after its hooks line. Where neither
// OpenCode nor pathgrant's plugin is installed, a problem they find is
// only information.
func opencodeChecks(env doctorEnv, c clientconfig.Client, home string, installed bool) []doctorCheck {
	out := []doctorCheck{opencodeEnvCheck(env), opencodeProjectCheck(env, c, home), opencodePermissionCheck(env, c, home),
		opencodeRunnersCheck(env, c, home)}
	argv, err := installedHook(env, c.Name, c.SettingsPath(env.Getenv, home, ""))
	if installed || err != nil || argv != nil {
		return out
	}
	for i, d := range out {
		if d.Status == doctorFail || d.Status == doctorWarn {
			out[i].Status, out[i].Detail = doctorInfo, d.Detail+" (OpenCode is not installed here)"
		}
	}
	return out
}

// finding is one thing a check found; a check with several reports the
// worst status and every finding.
type finding struct {
	status, detail, fix string
}

// statusRank orders the statuses from harmless to failing.
var statusRank = map[string]int{doctorOK: 0, doctorInfo: 1, doctorWarn: 2, doctorFail: 3}

// foldFindings makes one line of findings, or the ok line when there are none.
func foldFindings(name string, found []finding, ok string) doctorCheck {
	if len(found) == 0 {
		return doctorCheck{Name: name, Status: doctorOK, Detail: ok}
	}
	d := doctorCheck{Name: name, Status: doctorOK}
	var details, fixes []string
	for _, f := range found {
		if statusRank[f.status] > statusRank[d.Status] {
			d.Status = f.status
		}
		details = append(details, f.detail)
		if f.fix != "" && !slices.Contains(fixes, f.fix) {
			fixes = append(fixes, f.fix)
		}
	}
	d.Detail, d.Fix = strings.Join(details, "; "), strings.Join(fixes, "; ")
	return d
}

// opencodeEnvSwitches are the variables of OpenCode's environment that
// switch pathgrant's plugin off (OPENCODE_PURE: what --pure sets) or add
// configuration that pathgrant does not protect. Doctor sees its own
// environment, which is the one OpenCode gets when started from the same
// shell.
var opencodeEnvSwitches = []struct {
	name, status, what, fix string
	showValue               bool
}{
	{name: "OPENCODE_PURE", status: doctorFail,
		what: "OpenCode loads no external plugin, pathgrant's included: nothing guards its tools",
		fix:  "unset OPENCODE_PURE, and never start opencode with --pure"},
	{name: "OPENCODE_CONFIG_DIR", status: doctorWarn, showValue: true,
		what: "OpenCode also loads plugins, tools and config from that folder, which pathgrant does not protect from sessions",
		fix:  "unset OPENCODE_CONFIG_DIR and OPENCODE_CONFIG, or keep what they name out of every session's workspace"},
	{name: "OPENCODE_CONFIG", status: doctorWarn, showValue: true,
		what: "OpenCode also loads that config file (plugins, MCP servers), which pathgrant does not protect from sessions",
		fix:  "unset OPENCODE_CONFIG_DIR and OPENCODE_CONFIG, or keep what they name out of every session's workspace"},
	{name: "OPENCODE_TUI_CONFIG", status: doctorWarn, showValue: true,
		what: "OpenCode's terminal interface also loads that file (its plugins run in OpenCode), which pathgrant does not protect from sessions",
		fix:  "unset OPENCODE_TUI_CONFIG, or keep what it names out of every session's workspace"},
	{name: "OPENCODE_CONFIG_CONTENT", status: doctorWarn,
		what: "OpenCode merges that config last: it can add plugins and MCP servers",
		fix:  "unset OPENCODE_CONFIG_CONTENT unless you wrote it"},
	{name: "OPENCODE_PERMISSION", status: doctorInfo,
		what: "OpenCode's own permissions come from the environment too (they cannot switch pathgrant's plugin off)"},
}

// opencodeEnvCheck reports the variables of opencodeEnvSwitches that are
// set.
func opencodeEnvCheck(env doctorEnv) doctorCheck {
	var found []finding
	for _, v := range opencodeEnvSwitches {
		val := env.Getenv(v.name)
		if val == "" || v.name == "OPENCODE_PURE" && !opencodeFlag(val) {
			continue
		}
		set := v.name + " is set"
		if v.showValue || v.name == "OPENCODE_PURE" {
			set = v.name + "=" + val
		}
		found = append(found, finding{v.status, set + ": " + v.what, v.fix})
	}
	return foldFindings("opencode environment", found, "no OPENCODE_PURE, OPENCODE_CONFIG_DIR, OPENCODE_CONFIG, OPENCODE_TUI_CONFIG, OPENCODE_CONFIG_CONTENT or OPENCODE_PERMISSION here")
}

// opencodeFlag is how OpenCode reads a boolean variable: "1" or "true",
// in any case.
func opencodeFlag(v string) bool {
	v = strings.ToLower(v)
	return v == "1" || v == "true"
}

// opencodeProjectCheck looks where OpenCode started in doctor's folder
// would load a project's code and config: each folder from there up to
// the root of its git repository (to / outside one), and ~/.opencode,
// which OpenCode loads in every project. A plugin or tool there runs
// inside OpenCode, unconfined, and a plugin loaded after pathgrant's sees
// each call after pathgrant allowed it; a config there can list plugins or
// name another server pathgrant.
func opencodeProjectCheck(env doctorEnv, c clientconfig.Client, home string) doctorCheck {
	const name = "opencode project"
	if env.Getwd == nil {
		return doctorCheck{Name: name, Status: doctorInfo, Detail: "cannot tell the current folder"}
	}
	cwd, err := env.Getwd()
	if err != nil {
		return doctorCheck{Name: name, Status: doctorInfo, Detail: "cannot tell the current folder: " + oneLine(err.Error())}
	}
	dirs := opencodeProjectDirs(env, cwd)
	var found []finding
	for _, dir := range dirs {
		for _, name := range opencodeConfigNames {
			found = append(found, opencodeConfigFindings(env, c, filepath.Join(dir, name))...)
		}
		found = append(found, opencodeFolderFindings(env, c, dir)...)
	}
	if !slices.Contains(dirs, home) {
		found = append(found, opencodeFolderFindings(env, c, home)...)
	}
	scanned := cwd
	if top := dirs[len(dirs)-1]; top != cwd {
		scanned += " and its parents up to " + top
	}
	return foldFindings(name, found, "no plugin, tool or config of a project's own in "+scanned+" nor in "+filepath.Join(home, ".opencode"))
}

// opencodeConfigNames are a project's config files that can list
// plugins: OpenCode's, and its TUI's (tui.json), whose plugins the TUI
// loads into its own process.
var opencodeConfigNames = []string{"opencode.json", "opencode.jsonc", "tui.json", "tui.jsonc"}

// opencodeProjectDirs are the folders OpenCode reads a project's config
// from when started in cwd: cwd and each parent up to the first holding
// .git (the repository's root), or up to / outside a repository.
func opencodeProjectDirs(env doctorEnv, cwd string) []string {
	var dirs []string
	for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if _, err := env.Stat(filepath.Join(dir, ".git")); err == nil || dir == filepath.Dir(dir) {
			return dirs
		}
	}
}

// opencodeFolderFindings reads dir/.opencode: its config files, and the
// plugins and tools OpenCode loads from it ({plugin,plugins}/*.{js,ts},
// {tool,tools}/*.{js,ts}), pathgrant's own plugin as this build writes it
// excepted.
func opencodeFolderFindings(env doctorEnv, c clientconfig.Client, dir string) []finding {
	dot := filepath.Join(dir, ".opencode")
	var found []finding
	for _, name := range opencodeConfigNames {
		found = append(found, opencodeConfigFindings(env, c, filepath.Join(dot, name))...)
	}
	for _, sub := range []string{"plugin", "plugins", "tool", "tools"} {
		files, err := opencodeCodeFiles(env, filepath.Join(dot, sub))
		if err != nil {
			found = append(found, finding{doctorWarn, "cannot read " + filepath.Join(dot, sub) + ": " + oneLine(err.Error()), ""})
		}
		for _, file := range files {
			if f, foreign := opencodeCodeFinding(env, file, dir, strings.HasPrefix(sub, "plugin")); foreign {
				found = append(found, f)
			}
		}
	}
	return found
}

// opencodeProjectFix is what to do about a project's plugin, tool or
// config: pathgrant keeps sessions from writing them, but a repository
// can ship them.
const opencodeProjectFix = "read each, and remove what you do not trust (pathgrant keeps sessions from writing these files, but a repository can ship them)"

// opencodeCodeFiles are the .js and .ts files in dir (links followed), as
// OpenCode globs them; none when dir does not exist.
func opencodeCodeFiles(env doctorEnv, dir string) ([]string, error) {
	entries, err := env.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if ext != ".js" && ext != ".ts" {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if fi, err := env.Stat(p); err == nil && fi.Mode().IsRegular() {
			files = append(files, p)
		}
	}
	return files, nil
}

// opencodeCodeFinding says what a plugin or tool file is; foreign is
// false only for pathgrant's own plugin exactly as this build writes it.
func opencodeCodeFinding(env doctorEnv, file, project string, plugin bool) (f finding, foreign bool) {
	if !plugin {
		return finding{doctorFail, file + ": a tool of its own, code OpenCode runs in its process, unconfined", opencodeProjectFix}, true
	}
	data, err := env.ReadFile(file)
	if err != nil {
		return finding{doctorWarn, "cannot read " + file + ": " + oneLine(err.Error()), ""}, true
	}
	if strings.HasPrefix(string(data), clientconfig.OpenCodePluginMarker) {
		if _, err := opencodePluginArgv(file, data); err != nil {
			return finding{doctorFail, oneLine(err.Error()), "run: pathgrant install-hooks opencode --project " + project}, true
		}
		return f, false
	}
	return finding{doctorFail, file + ": a plugin loaded after pathgrant's: it runs inside OpenCode, unconfined, and sees each call after pathgrant allowed it", opencodeProjectFix}, true
}

// opencodeConfigFindings reads one of a project's config files for what
// changes who guards the tools: a plugin list, or an MCP server named
// pathgrant that does not run pathgrant's bridge (pathgrant would take its
// tools for the bridge's).
func opencodeConfigFindings(env doctorEnv, c clientconfig.Client, file string) []finding {
	data, err := env.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return []finding{{doctorWarn, "cannot read " + file + ": " + oneLine(err.Error()), ""}}
	}
	v, err := decodeJSONC(data)
	if err != nil {
		return []finding{{doctorWarn, file + " is " + oneLine(err.Error()) + ": cannot tell whether it lists plugins", opencodeProjectFix}}
	}
	doc, _ := v.(map[string]any)
	var found []finding
	for _, key := range []string{"plugin", "plugins"} {
		if list, _ := doc[key].([]any); len(list) > 0 {
			found = append(found, finding{doctorFail, fmt.Sprintf("%s lists plugins (%s), loaded after pathgrant's: they run inside OpenCode, unconfined, and see each call after pathgrant allowed it",
				file, pluginNames(list)), opencodeProjectFix})
		}
	}
	servers, _ := doc["mcp"].(map[string]any)
	std, _ := standardJSON(data) // decodeJSONC above read it
	if _, ok := servers[hooks.BridgeServer]; ok && !c.BridgeConfigured(std) {
		found = append(found, finding{doctorFail, fmt.Sprintf("%s has an MCP server named %q that does not run pathgrant's bridge", file, hooks.BridgeServer), opencodeProjectFix})
	}
	return found
}

// pluginNames lists a config's plugin entries: a name, or [name, options].
func pluginNames(list []any) string {
	names := make([]string, 0, len(list))
	for _, p := range list {
		if a, ok := p.([]any); ok && len(a) > 0 {
			p = a[0]
		}
		names = append(names, fmt.Sprint(p))
	}
	return strings.Join(names, ", ")
}

// opencodePermissionCheck reads OpenCode's external_directory permission
// from the user's config files (config.json, opencode.json,
// opencode.jsonc, the last one setting it winning, as OpenCode merges
// them). Unless it is "allow", OpenCode asks its own question for a path
// outside the project after pathgrant approved it, and `opencode run`,
// with nobody to answer, refuses it.
func opencodePermissionCheck(env doctorEnv, c clientconfig.Client, home string) doctorCheck {
	d := doctorCheck{Name: "opencode external_directory", Status: doctorInfo}
	dir := c.Dir(env.Getenv, home)
	file := filepath.Join(dir, "opencode.json")
	action := ""
	for _, name := range []string{"config.json", "opencode.json", "opencode.jsonc"} {
		p := filepath.Join(dir, name)
		data, err := env.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			d.Detail = "cannot read " + p + ": " + oneLine(err.Error())
			return d
		}
		v, err := decodeJSONC(data)
		if err != nil {
			d.Detail = p + " is " + oneLine(err.Error())
			return d
		}
		if a := externalDirectoryAction(v); a != "" {
			action, file = a, p
		}
	}
	after := "OpenCode asks its own question for a path outside the project after pathgrant approved it, and `opencode run` refuses it"
	d.Fix = `set "permission": {"external_directory": "allow"} in ` + file + " to leave those paths to pathgrant"
	switch action {
	case "allow":
		d.Status, d.Fix = doctorOK, ""
		d.Detail = file + ` sets "external_directory": "allow": OpenCode leaves paths outside the project to pathgrant`
	case "":
		d.Detail = `"external_directory" is not set in ` + dir + ": " + after
	case "deny":
		d.Detail = file + ` sets "external_directory": "deny": OpenCode refuses every path outside the project, even one pathgrant allows`
	case "patterns":
		d.Detail = file + ` sets "external_directory" per path: for a path it does not allow, ` + after
	default:
		d.Detail = file + ` sets "external_directory": "` + action + `": ` + after
	}
	return d
}

// externalDirectoryAction is what an OpenCode config document says of
// external_directory: its action, "patterns" for a set of paths, or ""
// when the document does not say. A permission that is one action
// applies to every permission.
func externalDirectoryAction(doc any) string {
	m, _ := doc.(map[string]any)
	switch p := m["permission"].(type) {
	case string:
		return p
	case map[string]any:
		switch e := p["external_directory"].(type) {
		case string:
			return e
		case map[string]any:
			if all, ok := e["*"].(string); ok && all == "allow" && len(e) == 1 {
				return "allow"
			}
			return "patterns"
		}
	}
	return ""
}

// opencodeRunnersCheck says whether the user's config turns on OpenCode's
// language servers or formatters ("lsp", "formatter"; off unless set in
// 1.18.33). OpenCode runs them itself, outside pathgrant's confinement,
// on the files the agent writes, and they run project code (a
// prettier.config.js, an eslint plugin, a build script a language server
// builds with): whatever a confined command wrote into the workspace
// would then run unconfined.
func opencodeRunnersCheck(env doctorEnv, c clientconfig.Client, home string) doctorCheck {
	d := doctorCheck{Name: "opencode lsp and formatters", Status: doctorOK}
	var on []string
	for _, name := range []string{"config.json", "opencode.json", "opencode.jsonc"} {
		p := filepath.Join(c.Dir(env.Getenv, home), name)
		data, err := env.ReadFile(p)
		if err != nil {
			continue // unreadable files are the external_directory line's to report
		}
		v, err := decodeJSONC(data)
		m, _ := v.(map[string]any)
		if err != nil || m == nil {
			continue
		}
		for _, key := range []string{"lsp", "formatter"} {
			if x, ok := m[key]; ok && x != false && x != nil {
				on = append(on, fmt.Sprintf("%q in %s", key, p))
			}
		}
	}
	if len(on) == 0 {
		d.Detail = "OpenCode runs no language server or formatter of its own (lsp and formatter are off)"
		return d
	}
	d.Status = doctorWarn
	d.Detail = strings.Join(on, ", ") + ": OpenCode runs these itself, unconfined, on the files the agent writes, and they run project code the agent can write"
	d.Fix = `set "lsp": false and "formatter": false, or accept that a project's tool configuration runs outside pathgrant's confinement`
	return d
}
