package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"pathgrant/ipc/hooks"
)

const installHooksUsageText = "usage: pathgrant install-hooks claude|codex|cursor|gemini|pi [--project DIR] [--uninstall] [--hook PATH] [--socket PATH]"

// hookTimeoutSeconds is the hook timeout install-hooks registers with every
// client (Gemini takes it in milliseconds). The hook stops waiting for the
// user at hooks.DefaultWait, and answers within a few seconds more: always
// before the client gives up on it, which for Codex would run the tool.
const hookTimeoutSeconds = 60

type installHooksArgs struct {
	client    string
	project   string
	uninstall bool
	hook      string
	socket    string
}

// hookTarget is where one client's hook registration lives.
type hookTarget struct {
	path string
	// edit changes the parsed settings: it removes any pathgrant hook for
	// the client and, unless uninstalling, adds the current one.
	edit func(doc *ihObject, command string, uninstall bool) error
}

// runInstallHooks implements `pathgrant install-hooks`: it merges the
// pathgrant hook into one client's settings (keeping everything else,
// writing a timestamped backup of the previous file), is idempotent, and
// with --uninstall removes exactly the entries it adds. Exit 0 done, 1
// failure, 2 usage.
func runInstallHooks(args []string, stdout, stderr io.Writer) int {
	a, err := parseInstallHooksArgs(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, installHooksUsageText)
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "pathgrant install-hooks: %s\n%s\n", oneLine(err.Error()), installHooksUsageText)
		return 2
	}
	msg, err := installHooks(a)
	if err != nil {
		fmt.Fprintf(stderr, "pathgrant install-hooks: %s\n", oneLine(err.Error()))
		return 1
	}
	fmt.Fprintln(stdout, msg)
	return 0
}

func parseInstallHooksArgs(args []string) (installHooksArgs, error) {
	var a installHooksArgs
	fs := flag.NewFlagSet("install-hooks", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&a.project, "project", "", "install into this project's settings instead of the user's")
	fs.BoolVar(&a.uninstall, "uninstall", false, "remove the pathgrant hook")
	fs.StringVar(&a.hook, "hook", "", "the pathgrant-hook binary (default: next to this binary, else on $PATH)")
	fs.StringVar(&a.socket, "socket", "", "daemon socket the hook should use (default: the hook's own default)")
	var pos []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return a, err
		}
		if fs.NArg() == 0 {
			break
		}
		pos, rest = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	switch {
	case len(pos) != 1:
		return a, errors.New("give exactly one client")
	case !slices.Contains(hooks.Clients(), pos[0]):
		return a, fmt.Errorf("unknown client %q (want %s)", pos[0], strings.Join(hooks.Clients(), ", "))
	}
	a.client = pos[0]
	return a, nil
}

func installHooks(a installHooksArgs) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("home folder: %w", err)
	}
	project := ""
	if a.project != "" {
		if project, err = filepath.Abs(a.project); err != nil {
			return "", err
		}
		if fi, err := os.Stat(project); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("project %s is not a folder", project)
		}
	}
	argv := []string{"", a.client}
	if !a.uninstall {
		if argv[0], err = findHookBinary(a.hook); err != nil {
			return "", err
		}
		if a.socket != "" {
			sock, err := filepath.Abs(a.socket)
			if err != nil {
				return "", err
			}
			argv = append(argv, "--socket", sock)
		}
	}
	if a.client == "pi" {
		return installPiExtension(piExtensionPath(home, project), argv, a.uninstall)
	}
	t := hookTargetFor(a.client, home, project)
	changed, backup, err := editSettings(t.path, func(doc *ihObject) error {
		return t.edit(doc, shellJoin(argv), a.uninstall)
	})
	if err != nil {
		return "", err
	}
	return installReport(a.client, t.path, a.uninstall, changed, backup), nil
}

func installReport(client, path string, uninstall, changed bool, backup string) string {
	var msg string
	switch {
	case uninstall && changed:
		msg = fmt.Sprintf("removed the pathgrant hook for %s from %s", client, path)
	case uninstall:
		return fmt.Sprintf("no pathgrant hook for %s in %s: nothing to remove", client, path)
	case changed:
		msg = fmt.Sprintf("installed the pathgrant hook for %s in %s", client, path)
	default:
		return fmt.Sprintf("the pathgrant hook for %s is already installed in %s", client, path)
	}
	if backup != "" {
		msg += " (previous file saved as " + backup + ")"
	}
	return msg
}

// findHookBinary returns the absolute path of pathgrant-hook: the flag's,
// else the one next to this binary, else the one on $PATH.
func findHookBinary(flagValue string) (string, error) {
	candidates := []string{}
	if flagValue != "" {
		candidates = append(candidates, flagValue)
	} else {
		if exe, err := os.Executable(); err == nil {
			candidates = append(candidates, filepath.Join(filepath.Dir(exe), "pathgrant-hook"))
		}
		if p, err := exec.LookPath("pathgrant-hook"); err == nil {
			candidates = append(candidates, p)
		}
	}
	for _, c := range candidates {
		abs, err := filepath.Abs(c)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return abs, nil
		}
	}
	if flagValue != "" {
		return "", fmt.Errorf("%s is not an executable file", flagValue)
	}
	return "", errors.New("cannot find pathgrant-hook next to this binary or on $PATH (build it with 'CGO_ENABLED=0 go build ./cmd/pathgrant-hook', or give --hook)")
}

// hookTargetFor says where a client's settings live: the user's (home)
// or, with --project, the project's own (the personal, uncommitted file
// where a client has one, since the hook's path is this machine's).
func hookTargetFor(client, home, project string) hookTarget {
	base := func(global, local string) string {
		if project != "" {
			return filepath.Join(project, local)
		}
		return filepath.Join(home, global)
	}
	switch client {
	case "claude":
		return hookTarget{base(".claude/settings.json", ".claude/settings.local.json"), editClaude}
	case "codex":
		return hookTarget{base(".codex/hooks.json", ".codex/hooks.json"), editCodex}
	case "gemini":
		return hookTarget{base(".gemini/settings.json", ".gemini/settings.json"), editGemini}
	}
	return hookTarget{base(".cursor/hooks.json", ".cursor/hooks.json"), editCursor}
}

func piExtensionPath(home, project string) string {
	if project != "" {
		return filepath.Join(project, ".pi", "extensions", "pathgrant.ts")
	}
	return filepath.Join(home, ".pi", "agent", "extensions", "pathgrant.ts")
}

// Claude Code: hooks.PreToolUse[] = {matcher, hooks: [{type, command, timeout}]}.
func editClaude(doc *ihObject, command string, uninstall bool) error {
	entry := newIHObject("type", "command", "command", command, "timeout", json.Number(fmt.Sprint(hookTimeoutSeconds)))
	return editGroups(doc, []string{"PreToolUse"}, "claude", entry, "*", uninstall)
}

// Codex: hooks.PreToolUse[] and hooks.PermissionRequest[] = {hooks:
// [{type, command, timeout}]}, no matcher (every tool).
func editCodex(doc *ihObject, command string, uninstall bool) error {
	entry := newIHObject("type", "command", "command", command, "timeout", json.Number(fmt.Sprint(hookTimeoutSeconds)))
	return editGroups(doc, []string{"PreToolUse", "PermissionRequest"}, "codex", entry, "", uninstall)
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
	entry := newIHObject("name", "pathgrant", "type", "command", "command", command,
		"timeout", json.Number(fmt.Sprint(hookTimeoutSeconds*1000)), "description", desc)
	if err := editGroups(doc, []string{"BeforeTool"}, "gemini", entry, "", uninstall); err != nil {
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
// for beforeShellExecution, beforeReadFile and beforeMCPExecution.
func editCursor(doc *ihObject, command string, uninstall bool) error {
	events := []string{"beforeShellExecution", "beforeReadFile", "beforeMCPExecution"}
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
			kept := slices.DeleteFunc(slices.Clone(list), func(v any) bool { return isOurHook(v, "cursor") })
			if !uninstall {
				kept = append(kept, newIHObject("command", command, "timeout", json.Number(fmt.Sprint(hookTimeoutSeconds)), "failClosed", true))
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
	if len(h.keys) == 0 {
		doc.del("hooks")
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
	words := shellSplit(cmd)
	return len(words) >= 2 && filepath.Base(words[0]) == "pathgrant-hook" && words[1] == client
}

// shellJoin quotes each word for a POSIX shell.
func shellJoin(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
			out[i] = w
		} else {
			out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// shellSplit splits a command line into words, honouring single and
// double quotes and backslashes (enough to recognise what shellJoin wrote
// and what a person would write).
func shellSplit(s string) []string {
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

// editSettings reads the JSON settings file at path (missing or empty: an
// empty object), applies edit, and writes the result back atomically if
// it changed, after saving the previous file as a timestamped backup. A
// symlinked settings file is edited where it points. A file that is not a
// JSON object is left alone: an error.
func editSettings(path string, edit func(*ihObject) error) (changed bool, backup string, err error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, "", err
	}
	exists := err == nil
	doc := newIHObject()
	if len(bytes.TrimSpace(old)) > 0 {
		v, err := ihDecode(old)
		if err != nil {
			return false, "", fmt.Errorf("%s is not valid JSON (%v); fix it or move it aside, then run this again", path, err)
		}
		obj, ok := v.(*ihObject)
		if !ok {
			return false, "", fmt.Errorf("%s does not hold a JSON object; fix it or move it aside", path)
		}
		doc = obj
	}
	if err := edit(doc); err != nil {
		return false, "", fmt.Errorf("%s: %w", path, err)
	}
	var buf bytes.Buffer
	ihEncode(&buf, doc, "")
	buf.WriteByte('\n')
	if exists && bytes.Equal(buf.Bytes(), old) || !exists && len(doc.keys) == 0 {
		return false, "", nil
	}
	if exists && ihCanonical(old) == ihCanonical(buf.Bytes()) {
		return false, "", nil // only the layout would change
	}
	if err := writeSettings(path, old, exists, buf.Bytes(), &backup); err != nil {
		return false, "", err
	}
	return true, backup, nil
}

// ihCanonical is a file's JSON with the layout normalised, or the raw text
// when it does not parse.
func ihCanonical(data []byte) string {
	v, err := ihDecode(data)
	if err != nil {
		return string(data)
	}
	var buf bytes.Buffer
	ihEncode(&buf, v, "")
	return buf.String()
}

// writeSettings saves old as a backup (when the file existed) and then
// replaces the file with data, keeping its mode.
func writeSettings(path string, old []byte, exists bool, data []byte, backup *string) error {
	mode := fs.FileMode(0o600)
	if exists {
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
		*backup = path + ".pathgrant-backup-" + time.Now().UTC().Format("20060102T150405.000Z")
		if err := os.WriteFile(*backup, old, mode); err != nil {
			return fmt.Errorf("back up %s: %w", path, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".pathgrant-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// installPiExtension writes (or removes) pathgrant's Pi extension file.
// A file of that name that is not pathgrant's is never touched.
func installPiExtension(path string, argv []string, uninstall bool) (string, error) {
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if exists && !bytes.HasPrefix(old, []byte(hooks.PiExtensionMarker)) {
		return "", fmt.Errorf("%s exists and is not pathgrant's extension; move it aside, then run this again", path)
	}
	if uninstall {
		if !exists {
			return installReport("pi", path, true, false, ""), nil
		}
		backup := path + ".pathgrant-backup-" + time.Now().UTC().Format("20060102T150405.000Z")
		if err := os.Rename(path, backup); err != nil {
			return "", err
		}
		return installReport("pi", path, true, true, backup), nil
	}
	data := []byte(hooks.PiExtensionFor(argv))
	if exists && bytes.Equal(old, data) {
		return installReport("pi", path, false, false, ""), nil
	}
	var backup string
	if err := writeSettings(path, old, exists, data, &backup); err != nil {
		return "", err
	}
	return installReport("pi", path, false, true, backup), nil
}

// ihObject is a JSON object that keeps its keys in order, so that a
// settings file keeps its layout apart from what install-hooks changes.
// Values are *ihObject, []any, string, json.Number, bool or nil.
type ihObject struct {
	keys []string
	vals map[string]any
}

func newIHObject(kv ...any) *ihObject {
	o := &ihObject{vals: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *ihObject) has(k string) bool { _, ok := o.vals[k]; return ok }

func (o *ihObject) set(k string, v any) {
	if !o.has(k) {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *ihObject) setFirst(k string, v any) {
	o.del(k)
	o.keys = append([]string{k}, o.keys...)
	o.vals[k] = v
}

func (o *ihObject) del(k string) {
	if !o.has(k) {
		return
	}
	delete(o.vals, k)
	o.keys = slices.DeleteFunc(o.keys, func(s string) bool { return s == k })
}

// object returns the object under k, creating it when create is set; a
// value of another type under k is an error (nothing is overwritten).
func (o *ihObject) object(k string, create bool) (*ihObject, error) {
	v, ok := o.vals[k]
	if !ok || v == nil {
		if !create {
			return nil, nil
		}
		n := newIHObject()
		o.set(k, n)
		return n, nil
	}
	obj, ok := v.(*ihObject)
	if !ok {
		return nil, fmt.Errorf("%q is not an object", k)
	}
	return obj, nil
}

// array returns the array under k (nil when absent).
func (o *ihObject) array(k string) ([]any, error) {
	v, ok := o.vals[k]
	if !ok || v == nil {
		return nil, nil
	}
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%q is not an array", k)
	}
	return a, nil
}

func ihDecode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := ihValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the top-level value")
	}
	return v, nil
}

func ihValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := newIHObject()
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := ihValue(dec)
			if err != nil {
				return nil, err
			}
			o.set(kt.(string), v)
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := ihValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return tok, nil
}

// ihEncode writes v indented by two spaces, keys in their order.
func ihEncode(buf *bytes.Buffer, v any, indent string) {
	inner := indent + "  "
	switch v := v.(type) {
	case *ihObject:
		if len(v.keys) == 0 {
			buf.WriteString("{}")
			return
		}
		buf.WriteString("{\n")
		for i, k := range v.keys {
			buf.WriteString(inner)
			ihScalar(buf, k)
			buf.WriteString(": ")
			ihEncode(buf, v.vals[k], inner)
			if i < len(v.keys)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		buf.WriteString(indent + "}")
	case []any:
		if len(v) == 0 {
			buf.WriteString("[]")
			return
		}
		buf.WriteString("[\n")
		for i, e := range v {
			buf.WriteString(inner)
			ihEncode(buf, e, inner)
			if i < len(v)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		buf.WriteString(indent + "]")
	default:
		ihScalar(buf, v)
	}
}

func ihScalar(buf *bytes.Buffer, v any) {
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil { // strings, numbers, bools and null always encode
		panic(err)
	}
	buf.Write(bytes.TrimSuffix(enc.Bytes(), []byte("\n")))
}
