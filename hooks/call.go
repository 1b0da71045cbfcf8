package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"pathgrant/wire"
)

// Call is one hook invocation, translated: who is asking (the client's own
// session id, its working directory and workspace roots) and the accesses
// the tool call needs, each of which becomes one check request.
type Call struct {
	Client         string
	Event          string
	Tool           string
	ClientSession  string
	Cwd            string
	WorkspaceRoots []string
	RequestID      string
	Accesses       []Access
	// NoFiles marks a tool known to touch no local file (a web fetch, a
	// to-do list, a question to the person): the hook leaves it to the
	// client's own permission flow without asking the daemon. Only the
	// tools of the client's row in the client table (NoFileTools) are
	// such tools.
	NoFiles bool
	// Shell marks a shell-command tool whose ToolInput can be rewritten to
	// run confined under `pathgrant exec` (see ExecWrap).
	Shell     bool
	ToolInput json.RawMessage
	// MCP marks a call of an MCP tool, answered without the daemon (see
	// mcpVerdict). Bridge marks one of pathgrant's own bridge's tools,
	// decided by bridgeTool's exact rule alone. MCPServer names the
	// server, for messages only, when the client names it apart from the
	// tool (BridgeServer for the bridge).
	MCP       bool
	Bridge    bool
	MCPServer string
	// Purpose is what the agent said a shell call is for, where its
	// client sends it (Claude Code's Bash "description"), and ToolTimeout
	// how long the client lets the command run (its own clock); 0: none
	// (purpose.go).
	Purpose     string
	ToolTimeout time.Duration
	// Wrapped marks a shell call whose command came wrapped in this
	// build's own confining rewrite (Codex's PermissionRequest about the
	// command as PreToolUse rewrote it): it runs confined whatever the
	// answer, so the check may count what its confinement view opens.
	Wrapped bool
}

// Access is one thing to check: an op on a path, or a shell command (which
// the daemon's guard analyses into accesses itself).
type Access struct {
	Op      wire.Op `json:"op,omitempty"`
	Path    string  `json:"path,omitempty"`
	Command string  `json:"command,omitempty"`
	// Input is a search tool's own input, shown to the person instead of
	// the recursive read it is checked as (searchinput.go).
	Input searchInput `json:"-"`
}

func readAccess(p string) Access  { return Access{Op: wire.OpRead, Path: p} }
func writeAccess(p string) Access { return Access{Op: wire.OpWrite, Path: p} }

// treeAccess is a recursive read of root (what Glob, Grep and their kin do).
// It is sent as wire.TreeRead, which the guard treats as a read of the
// whole subtree: it needs a folder grant.
func treeAccess(root string) Access {
	if root == "" {
		root = "."
	}
	return Access{Command: wire.TreeRead(root)}
}

// shellCommand is a command as the client will run it: in cwd. The guard
// resolves relative paths against the session's working directory, which
// need not be where this command runs, so the command is prefixed with a
// cd to the directory the client reports (the guard models cd).
func shellCommand(cwd, command string) Access {
	if strings.HasPrefix(cwd, "/") {
		command = wire.ShellIn(cwd, command)
	}
	return Access{Command: command}
}

// under makes a relative path absolute against cwd the way the kernel
// would: by joining, without cleaning (the daemon resolves `..` after
// symlinks, which a lexical clean would get wrong). Absolute and `~`
// paths, and paths with no absolute cwd to join to, are left alone.
func under(cwd, p string) string {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || !strings.HasPrefix(cwd, "/") {
		return p
	}
	return strings.TrimRight(cwd, "/") + "/" + p
}

// expandHome is p with a leading "~" or "~/" expanded the way a client
// that expands it does: to the home directory of its environment (Node's
// os.homedir() reads $HOME first; the hook runs with the client's
// environment). A search root must reach the daemon expanded: it is sent
// as a shell word (wire.TreeRead), quoted, and a quoted "~/.ssh" is a
// folder of that name in the working directory, not the home folder the
// client searches. With no home to expand to, p is left for the daemon.
func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil || !strings.HasPrefix(home, "/") {
		return p
	}
	return strings.TrimRight(home, "/") + p[1:]
}

// literalHome is p for a client that expands no "~": a path starting with
// one is a name in the working directory like any other relative path,
// where under would leave it for the daemon to expand to the home
// folder, which the client never opens.
func literalHome(cwd, p string) string {
	if strings.HasPrefix(p, "~") && strings.HasPrefix(cwd, "/") {
		return strings.TrimRight(cwd, "/") + "/" + p
	}
	return under(cwd, p)
}

// globRoot returns the directory a glob pattern searches under base: the
// pattern's leading components that hold no glob syntax, joined to base
// (or on their own, for an absolute pattern).
func globRoot(base, pattern string) string {
	abs := strings.HasPrefix(pattern, "/")
	var fixed []string
	parts := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	for i, c := range parts {
		if strings.ContainsAny(c, "*?[{\\") || i == len(parts)-1 && !abs {
			break // the last component of a relative pattern names files, not a folder
		}
		if c != "" {
			fixed = append(fixed, c)
		}
	}
	prefix := strings.Join(fixed, "/")
	switch {
	case abs:
		return "/" + prefix
	case prefix == "":
		return base
	case base == "":
		return prefix
	}
	return strings.TrimRight(base, "/") + "/" + prefix
}

// globRootsAnyCase are the folders a glob pattern may search under base
// when it is matched without regard to case (node-glob's nocase, which
// Gemini CLI's glob and read_many_files and Qwen Code's glob set): the
// pattern's folders match in any case too, so "Data/pub/*" also reads
// Data/PUB. The root of the pattern (globRoot) is taken in every spelling
// that exists on disk.
func globRootsAnyCase(base, pattern string) []string {
	root := globRoot(base, pattern)
	start := base
	if strings.HasPrefix(pattern, "/") {
		start = "/"
	}
	rest, ok := strings.CutPrefix(root, start)
	if !ok || !strings.HasPrefix(start, "/") {
		return []string{root}
	}
	return caseVariants(start, strings.Split(strings.Trim(rest, "/"), "/"))
}

// joinRaw joins name to dir without cleaning (a `..` stays for the guard
// to judge both ways).
func joinRaw(dir, name string) string {
	return strings.TrimRight(dir, "/") + "/" + name
}

// caseVariantsMax bounds the spellings caseVariants returns; past it the
// search is checked from the folder where the spellings multiplied.
const caseVariantsMax = 32

// caseVariants are the paths under the folder start that the components
// name when each is matched without regard to case: the one as written
// and every existing folder entry spelled otherwise.
func caseVariants(start string, comps []string) []string {
	paths := []string{start}
	for _, comp := range comps {
		if comp == "" || comp == "." {
			continue
		}
		var next []string
		for _, p := range paths {
			next = append(next, joinRaw(p, comp))
			if comp == ".." {
				continue
			}
			entries, _ := os.ReadDir(p)
			for _, e := range entries {
				if e.Name() != comp && strings.EqualFold(e.Name(), comp) {
					next = append(next, joinRaw(p, e.Name()))
				}
			}
		}
		if len(next) > caseVariantsMax {
			return paths
		}
		paths = next
	}
	return paths
}

// anchoredGlobRoots are globRoot's root for pattern under base and, for a
// pattern starting with "/", the root of the pattern anchored at base: a
// glob handed to ripgrep (`rg --files --glob /e/*.txt` in /d lists /d/e,
// never /e) is anchored at the folder searched, as Droid's Glob hands it
// and Copilot's native glob may. Both are checked.
func anchoredGlobRoots(base, pattern string) []string {
	roots := []string{globRoot(base, pattern)}
	if anchored := strings.TrimLeft(pattern, "/"); anchored != pattern {
		if r := globRoot(base, anchored); r != roots[0] {
			roots = append(roots, r)
		}
	}
	return roots
}

// searchAccess is a search of path (a folder searched recursively, or one
// file when path names an existing regular file).
func searchAccess(path string) Access {
	if strings.HasPrefix(path, "/") {
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
			return readAccess(path)
		}
	}
	return treeAccess(path)
}

// Errors that decide how a failed translation is answered.
var (
	// errMalformed: the input is not the client's hook JSON at all. The
	// answer is exit status 2 with the reason on stderr, the one block
	// every client honours whatever event it was running.
	errMalformed = errors.New("malformed hook input")
	// errUnknownTool: a tool whose file accesses pathgrant cannot know
	// (not in the mapping, not one known to touch no file, not MCP). The
	// daemon is told and the call denied, unless the device policy says
	// unmapped_tools = "ask-client" (unmapped.go).
	errUnknownTool = errors.New("unknown tool")
	// errTwoKeys: one thing named under two keys (two path keys, two
	// command keys). Refused like input not understood: never asked of
	// the daemon, so nothing a person could approve (twoKeysReason).
	errTwoKeys = errors.New("one path or command named under two keys")
)

// twoKeysReason is the refusal of a call whose input names one path or
// command under two keys (errTwoKeys).
func twoKeysReason(client Client, err error) string {
	return fmt.Sprintf("pathgrant: %v in a %s tool call: the one pathgrant would check might not be the one %s uses, so the call is denied (name it once)",
		err, client.Title, client.Title)
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

func unknownTool(client, tool string) error {
	return fmt.Errorf("%w: %s tool %q is not one pathgrant can map to the files it touches", errUnknownTool, client, tool)
}

// fields is a tool's input object.
type fields map[string]json.RawMessage

func decodeObject(raw []byte, what string) (fields, error) {
	var f fields
	if err := json.Unmarshal(raw, &f); err != nil || f == nil {
		if err == nil {
			err = errors.New("not an object")
		}
		return nil, malformed("%s: %v", what, err)
	}
	return f, nil
}

// one is the one of keys the input holds, "" when it holds none. An input
// holding two of them is refused (errTwoKeys): which one the client reads
// is its own choice, and the one checked might not be the one used. A key
// present with the value null counts as present.
func (f fields) one(keys ...string) (string, error) {
	var found []string
	for _, k := range keys {
		if _, ok := f[k]; ok && !slices.Contains(found, k) {
			found = append(found, k)
		}
	}
	if len(found) > 1 {
		return "", fmt.Errorf("%w (%s)", errTwoKeys, quoteAll(found))
	}
	if len(found) == 0 {
		return "", nil
	}
	return found[0], nil
}

// str returns the one of keys present (see one) as a string. A key
// present with another type is malformed; none present, or null, returns
// "".
func (f fields) str(keys ...string) (string, error) {
	k, err := f.one(keys...)
	if err != nil || k == "" || string(f[k]) == "null" {
		return "", err
	}
	var s string
	if err := json.Unmarshal(f[k], &s); err != nil {
		return "", malformed("field %q is not a string", k)
	}
	return s, nil
}

// path is str for a path: keys are the keys the client reads this tool's
// path from (one in each of its versions), and no other of the client's
// path keys (vocab) may stand beside it, so the key checked is the key the
// client uses.
func (f fields) path(vocab []string, keys ...string) (string, error) {
	if _, err := f.one(append(slices.Clone(vocab), keys...)...); err != nil {
		return "", err
	}
	return f.str(keys...)
}

// needPath is path for a path that must be present and non-empty.
func (f fields) needPath(vocab []string, tool string, keys ...string) (string, error) {
	p, err := f.path(vocab, keys...)
	if err == nil && p == "" {
		err = malformed("tool %s: missing %q", tool, keys[0])
	}
	return p, err
}

// command is str for a shell command: "command" is the key every
// supported client reads it from, and no other command key may stand
// beside it.
func (f fields) command(tool string) (string, error) {
	if _, err := f.one(commandKeys...); err != nil {
		return "", err
	}
	return f.need(tool, "command")
}

// commandKeys are the keys a tool input may name a shell command with
// (Cline reads any one of them); a shell tool's input naming two is
// refused.
var commandKeys = []string{"command", "cmd", "commands"}

func quoteAll(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, " and ")
}

// each is str for each key on its own: the values in the keys' order.
func (f fields) each(keys ...string) ([]string, error) {
	out := make([]string, len(keys))
	for i, k := range keys {
		s, err := f.str(k)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// need is str for a field that must be present and non-empty.
func (f fields) need(tool string, keys ...string) (string, error) {
	s, err := f.str(keys...)
	if err == nil && s == "" {
		err = malformed("tool %s: missing %q", tool, keys[0])
	}
	return s, err
}

// strs returns the one of keys present (see one) as a list of strings
// (a single string counts as a list of one).
func (f fields) strs(keys ...string) ([]string, error) {
	k, err := f.one(keys...)
	if err != nil || k == "" || string(f[k]) == "null" {
		return nil, err
	}
	raw := f[k]
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		return list, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, malformed("field %q is not a string or a list of strings", k)
	}
	return []string{s}, nil
}
