package wire

import (
	"path"
	"slices"
	"strings"
)

// A hook judges and runs an agent's shell command in the directory the
// client reports by prefixing it with a cd (ShellIn); the person is shown
// the command as the agent wrote it (AgentCommand). Both sides share this
// one spelling so that the prefix can be taken off exactly.

// shellInPrefix begins every command ShellIn builds.
const shellInPrefix = "cd -- "

// ShellQuote returns s as one single-quoted POSIX shell word.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellIn is command run in dir: `cd -- 'dir' && command`.
func ShellIn(dir, command string) string {
	return shellInPrefix + ShellQuote(dir) + " && " + command
}

// AgentCommand undoes ShellIn: the command without the prefix, when text
// is exactly a ShellIn of some directory; any other text is returned as it
// is, so nothing an agent wrote is ever hidden.
func AgentCommand(text string) string {
	rest, ok := strings.CutPrefix(text, shellInPrefix+"'")
	if !ok {
		return text
	}
	for {
		i := strings.IndexByte(rest, '\'')
		if i < 0 {
			return text
		}
		rest = rest[i+1:]
		if after, ok := strings.CutPrefix(rest, `\''`); ok {
			rest = after // an escaped quote inside the directory
			continue
		}
		if after, ok := strings.CutPrefix(rest, " && "); ok {
			return after
		}
		return text
	}
}

// treeReadPrefix begins every TreeRead.
const treeReadPrefix = "ls -R -- "

// TreeRead is how a hook sends a search tool's recursive read of root
// (Glob, Grep and their kin): the command `ls -R -- 'root'`, which the
// guard judges as a read of the whole subtree, symlinks not followed, as
// the search tools behave. A root holding a `..` is read twice: as
// written, which the guard resolves as the kernel does, and cleaned
// lexically, as Node's path.resolve (which most clients run a search's
// folder through) takes it; after a link the two differ.
func TreeRead(root string) string {
	text := treeReadPrefix + ShellQuote(root)
	if slices.Contains(strings.Split(root, "/"), "..") {
		text += " " + ShellQuote(path.Clean(root))
	}
	return text
}

// IsTreeRead reports whether text is exactly a TreeRead, a command the
// agent never wrote: the person is shown the tool's own input instead.
func IsTreeRead(text string) bool {
	q, ok := strings.CutPrefix(text, treeReadPrefix)
	if !ok || !strings.HasPrefix(q, "'") {
		return false
	}
	var root strings.Builder
	for i := 1; i < len(q); {
		switch {
		case strings.HasPrefix(q[i:], `'\''`):
			root.WriteByte('\'')
			i += 4
		case q[i] == '\'':
			return TreeRead(root.String()) == text
		default:
			root.WriteByte(q[i])
			i++
		}
	}
	return false
}
