package clientconfig

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Codex CLI (0.169) runs a hook from hooks.json only when three things
// hold, and says nothing when one does not:
//
//   - the hooks feature is on: `[features] hooks` in config.toml, on by
//     default (`codex_hooks` is its deprecated alias); an admin's
//     requirements.toml can force it off;
//   - the hook is trusted: the user's config.toml holds
//     `[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]` with
//     `trusted_hash` equal to the hook's current hash (an untrusted or
//     changed hook is skipped; `codex exec` has no way to ask);
//   - for a project's .codex/hooks.json, the project itself is trusted.
//
// installCodex writes the hook into hooks.json and then its trust (and,
// when the feature was switched off, the switch) into the user's
// config.toml, so that the hook runs with no further step.

// codexTrustMarker precedes each table install-hooks writes into
// config.toml; uninstalling removes the tables it marks.
const codexTrustMarker = "# pathgrant: trusts its Codex hook (pathgrant install-hooks codex)"

// codexFeatureNote ends a feature line install-hooks switched on;
// uninstalling switches it back off.
const codexFeatureNote = "# pathgrant: was false"

// installCodex is the codex row's Installer: the hook into hooks.json at
// path, then its trust into the user's config.toml.
func installCodex(path string, argv []string, uninstall bool) (bool, string, error) {
	changed, backup, err := jsonSettings(editCodex)(path, argv, uninstall)
	if err != nil {
		return changed, backup, err
	}
	var trusts []codexTrust
	if !uninstall {
		if trusts, err = codexHookTrusts(path); err != nil {
			return changed, backup, err
		}
	}
	cfg := filepath.Join(codexUserDir(filepath.Dir(path)), "config.toml")
	cfgChanged, err := editCodexConfig(cfg, codexKeySource(path), trusts, uninstall)
	if err != nil {
		return changed, backup, fmt.Errorf("codex hook trust in %s: %w", cfg, err)
	}
	return changed || cfgChanged, backup, nil
}

// codexUserDir is Codex's user folder: CODEX_HOME when it is set to an
// absolute path, else ~/.codex; dir (the folder of the edited hooks.json)
// when neither can be told.
func codexUserDir(dir string) string {
	if env := os.Getenv("CODEX_HOME"); filepath.IsAbs(env) {
		return filepath.Clean(env)
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".codex")
	}
	return dir
}

// codexTrust is one hooks.state entry: the hook's key and its hash.
type codexTrust struct{ key, hash string }

// codexEvents are the events pathgrant hooks with Codex's key label for
// each, in a fixed order so that reinstalling writes the same file.
var codexEvents = [][2]string{{"PreToolUse", "pre_tool_use"}, {"PermissionRequest", "permission_request"}, {"SessionEnd", "session_end"}}

// codexHookTrusts reads hooks.json at path and returns the trust entry of
// every pathgrant hook in it, keyed as Codex keys them.
func codexHookTrusts(path string) ([]codexTrust, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read back %s: %w", path, err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher *string           `json:"matcher"`
			Hooks   []json.RawMessage `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("read back %s: %w", path, err)
	}
	source := codexKeySource(path)
	var out []codexTrust
	for _, ev := range codexEvents {
		label := ev[1]
		for gi, g := range doc.Hooks[ev[0]] {
			for hi, raw := range g.Hooks {
				var h codexHandler
				if json.Unmarshal(raw, &h) != nil || h.Type != "command" || !isOurCommand(h.Command, "codex") {
					continue
				}
				hash, err := codexHookHash(label, g.Matcher, h)
				if err != nil {
					return nil, err
				}
				out = append(out, codexTrust{fmt.Sprintf("%s:%s:%d:%d", source, label, gi, hi), hash})
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no pathgrant hook in %s after installing it", path)
	}
	return out, nil
}

// CodexTrusts returns, for the pathgrant hooks in the Codex hooks.json at
// path, the hooks.state key Codex files each under and the trusted_hash
// it must carry, computed as install-hooks computes them, so that a health
// check can tell a hook Codex would skip as untrusted.
func CodexTrusts(path string) (map[string]string, error) {
	trusts, err := codexHookTrusts(path)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(trusts))
	for _, tr := range trusts {
		out[tr.key] = tr.hash
	}
	return out, nil
}

// codexKeySource is the hooks.json path as Codex spells it in a hook's
// key: under an explicit CODEX_HOME it resolves symlinks, under ~/.codex
// it does not.
func codexKeySource(path string) string {
	if filepath.IsAbs(os.Getenv("CODEX_HOME")) {
		if real, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
			return filepath.Join(real, filepath.Base(path))
		}
	}
	return path
}

// isOurCommand reports whether a hook command runs `pathgrant-hook CLIENT`.
func isOurCommand(cmd, client string) bool {
	words := CommandWords(cmd)
	return len(words) >= 2 && filepath.Base(words[0]) == "pathgrant-hook" && words[1] == client
}

// codexHandler is a command hook as Codex normalises it for its hash.
type codexHandler struct {
	Type          string  `json:"type"`
	Command       string  `json:"command"`
	Timeout       *uint64 `json:"timeout,omitempty"`
	Async         bool    `json:"async"`
	StatusMessage *string `json:"statusMessage,omitempty"`
}

// codexSessionEndTimeout is the longest Codex lets a SessionEnd hook run:
// it lowers a longer timeout to this before it hashes the hook.
const codexSessionEndTimeout = 3

// codexHookHash is Codex's trusted_hash of one command hook: "sha256:"
// and the hex SHA-256 of the compact JSON, keys sorted, of {event_name,
// matcher (when set), hooks: [the handler with its timeout defaulted to
// 600 s, at least 1, and at most 3 s for session_end]}.
func codexHookHash(label string, matcher *string, h codexHandler) (string, error) {
	timeout := uint64(600)
	if h.Timeout != nil {
		timeout = max(*h.Timeout, 1)
	}
	if label == "session_end" {
		timeout = min(timeout, codexSessionEndTimeout)
	}
	h.Timeout = &timeout
	identity := map[string]any{"event_name": label, "hooks": []any{h}}
	if matcher != nil {
		identity["matcher"] = *matcher
	}
	// Round-trip through a generic value so every object's keys sort.
	raw, err := json.Marshal(identity)
	if err != nil {
		return "", err
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil {
		return "", err
	}
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// editCodexConfig rewrites config.toml at path: it drops the hooks.state
// tables install-hooks wrote before for the hooks.json at source (and any
// table for the same keys),
// switches back what it switched on when uninstalling, and otherwise
// appends one marked table per trust and switches the hooks feature on if
// it was set to false. The rest of the file is kept as it was.
func editCodexConfig(path, source string, trusts []codexTrust, uninstall bool) (bool, error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	exists := err == nil
	text := dropCodexTrust(string(old), source, trusts)
	text = switchCodexFeature(text, !uninstall)
	if !uninstall {
		for _, tr := range trusts {
			if text != "" {
				text += "\n"
			}
			text += fmt.Sprintf("%s\n[hooks.state.%s]\ntrusted_hash = %s\n", codexTrustMarker, tomlString(tr.key), tomlString(tr.hash))
			if strings.Count(text, tomlString(tr.key)) != 1 {
				return false, fmt.Errorf("%s already sets the state of %s in a form install-hooks does not edit; remove that entry, then run this again", path, tr.key)
			}
		}
	}
	if text == string(old) || !exists && strings.TrimSpace(text) == "" {
		return false, nil
	}
	var backup string
	return true, writeSettings(path, old, exists, []byte(text), &backup)
}

// tomlHeader matches a table header line, capturing its key. Like the
// two patterns below it is compiled on first use: install-hooks needs it,
// every start of the hook binary, which links this package, does not.
var tomlHeader = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\[\[?\s*(.*?)\s*\]\]?\s*(#.*)?$`)
})

// dropCodexTrust removes the marked tables of the hooks.json at source,
// with their marker line, and the tables whose key is one of trusts' (a
// trust Codex itself wrote for the same hook).
func dropCodexTrust(text, source string, trusts []codexTrust) string {
	ours := "hooks.state." + strings.TrimSuffix(tomlString(source+":"), `"`)
	drop := map[string]bool{}
	for _, tr := range trusts {
		drop["hooks.state."+tomlString(tr.key)] = true
	}
	var out []string
	skipping, marked := false, false
	for _, line := range strings.SplitAfter(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if m := tomlHeader().FindStringSubmatch(trimmed); m != nil && !strings.HasPrefix(trimmed, "#") {
			mine := marked && strings.HasPrefix(m[1], ours)
			if mine && !skipping {
				out = out[:len(out)-1] // the marker
			}
			skipping = mine || drop[m[1]]
		}
		marked = trimmed == codexTrustMarker
		if !skipping {
			out = append(out, line)
		}
	}
	if kept := strings.TrimRight(strings.Join(out, ""), "\n"); kept != "" {
		return kept + "\n"
	}
	return ""
}

// codexFeatureOff matches the hooks feature switched off, in the
// [features] table or as a dotted key.
var codexFeatureOff = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\s*(?:features\.)?(?:hooks|codex_hooks)\s*=\s*)false\s*(#.*)?$`)
})

// codexFeatureOn matches a line install-hooks switched on.
var codexFeatureOn = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\s*(?:features\.)?(?:hooks|codex_hooks)\s*=\s*)true\s*` + regexp.QuoteMeta(codexFeatureNote) + `$`)
})

// switchCodexFeature switches `hooks = false` (or the deprecated
// `codex_hooks`) on, noting it, when on; when off it puts back only what
// it switched on.
func switchCodexFeature(text string, on bool) string {
	lines := strings.Split(text, "\n")
	table := ""
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if m := tomlHeader().FindStringSubmatch(trimmed); m != nil && !strings.HasPrefix(trimmed, "#") {
			table = m[1]
			continue
		}
		inFeatures := table == "features" || table == "" && strings.HasPrefix(trimmed, "features.")
		switch {
		case !inFeatures:
		case on && codexFeatureOff().MatchString(line):
			lines[i] = codexFeatureOff().ReplaceAllString(line, "${1}true "+codexFeatureNote)
		case !on && codexFeatureOn().MatchString(line):
			lines[i] = codexFeatureOn().ReplaceAllString(line, "${1}false")
		}
	}
	return strings.Join(lines, "\n")
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
