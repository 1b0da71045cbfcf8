package clientconfig

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"pathgrant/wire"
)

// The settings editors: each merges the pathgrant hook into one client's
// parsed settings, or removes exactly what it adds. The client table
// (clients.go) pairs each with its file.

// hookTimeoutSeconds is the hook timeout install-hooks registers with every
// client (Gemini takes it in milliseconds). The hook stops waiting for the
// user at hooks.DefaultWait, and answers within a few seconds more: always
// before the client gives up on it, which for Codex would run the tool.
const hookTimeoutSeconds = 60

// endTimeoutSeconds is the timeout of the session-end hook: it answers
// within endTimeout, and a client waits for it on the way out.
const endTimeoutSeconds = 5

// commandEntry is a {type: command} hook entry with a timeout in seconds.
func commandEntry(command string, seconds int) *ihObject {
	return newIHObject("type", "command", "command", command, "timeout", json.Number(fmt.Sprint(seconds)))
}

// Claude Code: hooks.PreToolUse[] = {matcher, hooks: [{type, command,
// timeout}]}, and hooks.SessionEnd[] = {hooks: [...]}, which ends the
// session in pathgrant when Claude's ends.
func editClaude(doc *ihObject, command string, uninstall bool) error {
	return editPreToolUse(doc, "claude", command, uninstall)
}

// Qwen Code: Claude Code's shape, in its own settings.json.
func editQwen(doc *ihObject, command string, uninstall bool) error {
	return editPreToolUse(doc, "qwen", command, uninstall)
}

// Factory Droid: its hooks.json, which is the hooks object itself and
// which Droid reads before the hooks of settings.json, with Claude Code's
// groups: PreToolUse (every tool) and SessionEnd.
func editDroid(doc *ihObject, command string, uninstall bool) error {
	if err := editEventGroups(doc, []string{"PreToolUse"}, "droid", commandEntry(command, hookTimeoutSeconds), "*", uninstall); err != nil {
		return err
	}
	return editEventGroups(doc, []string{"SessionEnd"}, "droid", commandEntry(command, endTimeoutSeconds), "", uninstall)
}

// editPreToolUse registers client's hook for PreToolUse (every tool) and
// SessionEnd, in Claude Code's shape.
func editPreToolUse(doc *ihObject, client, command string, uninstall bool) error {
	if err := editGroups(doc, []string{"PreToolUse"}, client, commandEntry(command, hookTimeoutSeconds), "*", uninstall); err != nil {
		return err
	}
	return editGroups(doc, []string{"SessionEnd"}, client, commandEntry(command, endTimeoutSeconds), "", uninstall)
}

// Codex: hooks.PreToolUse[], hooks.PermissionRequest[] and
// hooks.SessionEnd[] = {hooks: [{type, command, timeout}]}, no matcher
// (every tool).
func editCodex(doc *ihObject, command string, uninstall bool) error {
	if err := editGroups(doc, []string{"PreToolUse", "PermissionRequest"}, "codex", commandEntry(command, hookTimeoutSeconds), "", uninstall); err != nil {
		return err
	}
	return editGroups(doc, []string{"SessionEnd"}, "codex", commandEntry(command, endTimeoutSeconds), "", uninstall)
}

// Gemini CLI: hooksConfig.enabled, and hooks.BeforeTool[] = {hooks:
// [{name, type, command, timeout (ms), description}]}, no matcher (every
// tool). Hooks run only with hooksConfig.enabled; when install-hooks has
// to turn it on, its entry's description records what the setting was,
// and uninstalling puts that back.
func editGemini(doc *ihObject, command string, uninstall bool) error {
	was, err := geminiEnabledBefore(doc)
	if err != nil {
		return err
	}
	desc := geminiHookDescription
	if was != "" {
		desc += " (" + geminiEnabledNote + was + ")"
	}
	entry := func(seconds int) *ihObject {
		return newIHObject("name", "pathgrant", "type", "command", "command", command,
			"timeout", json.Number(fmt.Sprint(seconds*1000)), "description", desc)
	}
	if err := editGroups(doc, []string{"BeforeTool"}, "gemini", entry(hookTimeoutSeconds), "", uninstall); err != nil {
		return err
	}
	if err := editGroups(doc, []string{"SessionEnd"}, "gemini", entry(endTimeoutSeconds), "", uninstall); err != nil {
		return err
	}
	cfg, err := doc.object("hooksConfig", !uninstall)
	switch {
	case err != nil || cfg == nil:
		return err
	case !uninstall:
		cfg.set("enabled", true)
	case was == "false":
		cfg.set("enabled", false)
	case was == "unset":
		cfg.del("enabled")
		if len(cfg.keys) == 0 {
			doc.del("hooksConfig")
		}
	}
	return nil
}

const (
	geminiHookDescription = "pathgrant: asks the pathgrant daemon before each tool call"
	geminiEnabledNote     = "install-hooks turned hooks on; hooksConfig.enabled was "
)

// geminiEnabledBefore says what hooksConfig.enabled was before pathgrant
// turned it on: "unset", "false", or "" (it was on, or pathgrant did not
// change it). An installed pathgrant hook's description remembers it.
func geminiEnabledBefore(doc *ihObject) (string, error) {
	h, err := doc.object("hooks", false)
	if err != nil {
		return "", err
	}
	if h != nil {
		groups, _ := h.array("BeforeTool")
		for _, g := range groups {
			gobj, _ := g.(*ihObject)
			if gobj == nil {
				continue
			}
			list, _ := gobj.array("hooks")
			for _, v := range list {
				if !isOurHook(v, "gemini") {
					continue
				}
				desc, _ := v.(*ihObject).vals["description"].(string)
				if _, note, ok := strings.Cut(desc, geminiEnabledNote); ok {
					return strings.TrimSuffix(note, ")"), nil
				}
				return "", nil
			}
		}
	}
	cfg, err := doc.object("hooksConfig", false)
	if err != nil {
		return "", err
	}
	if cfg == nil || !cfg.has("enabled") {
		return "unset", nil
	}
	if cfg.vals["enabled"] == false {
		return "false", nil
	}
	return "", nil
}

// Cursor: version 1, and hooks.<event>[] = {command, timeout, failClosed}
// for beforeShellExecution, beforeReadFile and beforeMCPExecution, and
// for sessionEnd, which ends the session in pathgrant.
func editCursor(doc *ihObject, command string, uninstall bool) error {
	events := []string{"beforeShellExecution", "beforeReadFile", "beforeMCPExecution", "sessionEnd"}
	return editEventLists(doc, "cursor", events, uninstall, func(string) *ihObject {
		return newIHObject("command", command, "timeout", json.Number(fmt.Sprint(hookTimeoutSeconds)), "failClosed", true)
	})
}

// GitHub Copilot CLI: a hooks file of pathgrant's own, version 1, with
// hooks.preToolUse[] and hooks.sessionEnd[] = {type: command, bash,
// timeoutSec} (every tool: no matcher).
func editCopilot(doc *ihObject, command string, uninstall bool) error {
	return editEventLists(doc, "copilot", []string{"preToolUse", "sessionEnd"}, uninstall, func(ev string) *ihObject {
		seconds := hookTimeoutSeconds
		if ev == "sessionEnd" {
			seconds = endTimeoutSeconds
		}
		return newIHObject("type", "command", "bash", command, "timeoutSec", json.Number(fmt.Sprint(seconds)))
	})
}

// editEventLists edits a versioned hooks file whose events are plain lists
// of entries (Cursor's, Copilot's): it removes the client's entries from
// each event's list and, unless uninstalling, appends entry(event). It
// adds "version": 1 to a file without one, and removes it with the last
// hook.
func editEventLists(doc *ihObject, client string, events []string, uninstall bool, entry func(event string) *ihObject) error {
	h, err := doc.object("hooks", !uninstall)
	if err != nil {
		return err
	}
	if h != nil {
		for _, ev := range events {
			list, err := h.array(ev)
			if err != nil {
				return err
			}
			kept := slices.DeleteFunc(slices.Clone(list), func(v any) bool { return isOurHook(v, client) })
			if !uninstall {
				kept = append(kept, entry(ev))
			}
			if len(kept) == 0 && len(list) > 0 {
				h.del(ev)
			} else if len(kept) > 0 {
				h.set(ev, kept)
			}
		}
		if len(h.keys) == 0 {
			doc.del("hooks")
		}
	}
	switch {
	case !uninstall && !doc.has("version"):
		doc.setFirst("version", json.Number("1"))
	case uninstall && !doc.has("hooks") && len(doc.keys) == 1 && doc.has("version"):
		doc.del("version")
	}
	return nil
}

// editGroups removes the client's hooks from the matcher groups of each
// event (dropping groups, events and the hooks object they leave empty)
// and, unless uninstalling, appends one group holding entry.
func editGroups(doc *ihObject, events []string, client string, entry *ihObject, matcher string, uninstall bool) error {
	h, err := doc.object("hooks", !uninstall)
	if err != nil || h == nil {
		return err
	}
	if err := editEventGroups(h, events, client, entry, matcher, uninstall); err != nil {
		return err
	}
	if len(h.keys) == 0 {
		doc.del("hooks")
	}
	return nil
}

// editEventGroups is editGroups on the hooks object h itself.
func editEventGroups(h *ihObject, events []string, client string, entry *ihObject, matcher string, uninstall bool) error {
	for _, ev := range events {
		groups, err := h.array(ev)
		if err != nil {
			return err
		}
		var kept []any
		for _, g := range groups {
			gobj, ok := g.(*ihObject)
			if !ok {
				kept = append(kept, g)
				continue
			}
			list, err := gobj.array("hooks")
			if err != nil {
				return fmt.Errorf("hooks.%s: %w", ev, err)
			}
			rest := slices.DeleteFunc(slices.Clone(list), func(v any) bool { return isOurHook(v, client) })
			switch {
			case len(rest) == len(list):
				kept = append(kept, g)
			case len(rest) > 0:
				gobj.set("hooks", rest)
				kept = append(kept, g)
			}
		}
		if !uninstall {
			group := newIHObject()
			if matcher != "" {
				group.set("matcher", matcher)
			}
			group.set("hooks", []any{entry})
			kept = append(kept, group)
		}
		if len(kept) == 0 {
			h.del(ev)
		} else {
			h.set(ev, kept)
		}
	}
	return nil
}

// isOurHook reports whether v is a hook entry running `pathgrant-hook
// CLIENT` (whatever the binary's folder or further arguments).
func isOurHook(v any, client string) bool {
	obj, ok := v.(*ihObject)
	if !ok {
		return false
	}
	cmd, _ := obj.vals["command"].(string)
	if bash, ok := obj.vals["bash"].(string); ok && cmd == "" {
		cmd = bash // Copilot's hooks name the command "bash"
	}
	words := CommandWords(cmd)
	return len(words) >= 2 && filepath.Base(words[0]) == "pathgrant-hook" && words[1] == client
}

// CommandLine is the hook command install-hooks registers for argv: each
// word quoted for a POSIX shell where it needs it.
func CommandLine(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
			out[i] = w
		} else {
			out[i] = wire.ShellQuote(w)
		}
	}
	return strings.Join(out, " ")
}

// CommandWords splits a command line into words, honouring single and
// double quotes and backslashes (enough to recognise what CommandLine
// wrote and what a person would write).
func CommandWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`+"`", s[i+1]) >= 0:
				i++
				cur.WriteByte(s[i])
			default:
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
