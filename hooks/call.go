package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"pathgrant/wire"
	"strings"
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
	// MCP marks a call of an MCP tool, and MCPServer names its server
	// when the client says which (BridgeServer for pathgrant's own
	// bridge). It is answered without the daemon (see mcpVerdict).
	MCP       bool
	MCPServer string
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
)

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

// str returns the first of keys present as a string. A key present with
// another type is malformed; none present returns "".
func (f fields) str(keys ...string) (string, error) {
	for _, k := range keys {
		raw, ok := f[k]
		if !ok || string(raw) == "null" {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", malformed("field %q is not a string", k)
		}
		return s, nil
	}
	return "", nil
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

// strs returns the first of keys present as a list of strings (a single
// string counts as a list of one).
func (f fields) strs(keys ...string) ([]string, error) {
	for _, k := range keys {
		raw, ok := f[k]
		if !ok || string(raw) == "null" {
			continue
		}
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
	return nil, nil
}
