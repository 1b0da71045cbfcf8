package hooks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// What OpenCode reads with no tool call the plugin sees, for a call it
// does see: the files a sub-agent's prompt @-mentions (task), and the
// instruction files the read tool adds to what it read.

// opencodeTask adds what OpenCode reads for a sub-agent's prompt: each
// file or folder it @-mentions that exists, read with OpenCode's read
// tool (its instruction files too) straight into the sub-agent's first
// message, with no tool call the plugin sees. The sub-agent's own tool
// calls come through the plugin. A prompt that mentions nothing touches
// no file.
func opencodeTask(c *Call, f fields, worktree string) error {
	prompt, err := f.str("prompt")
	if err != nil {
		return err
	}
	if worktree == "" {
		worktree = c.Cwd
	}
	for _, m := range opencodeMentions(prompt) {
		path, err := opencodeMentionPath(worktree, m)
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, readAccess(path))
		for _, inst := range opencodeInstructionFiles(c.Cwd, path) {
			c.Accesses = append(c.Accesses, readAccess(inst))
		}
	}
	c.NoFiles = len(c.Accesses) == 0
	return nil
}

// opencodeMentionAt is the mention at the start of s (what follows its
// @) as OpenCode 1.18.33's FILE_REGEX takes it,
// /(?<![\w`])@(\.?[^\s`,.]*(?:\.[^\s`,.]+)*)/g: an optional dot, a run of
// characters that end no path, then each further dot followed by such a
// run. Hand-written: the hook links no regexp.
func opencodeMentionAt(s string) string {
	i := 0
	if strings.HasPrefix(s, ".") {
		i = 1
	}
	i += opencodeMentionRun(s[i:])
	for i < len(s) && s[i] == '.' {
		n := opencodeMentionRun(s[i+1:])
		if n == 0 {
			break
		}
		i += 1 + n
	}
	return s[:i]
}

// opencodeMentionRun is the length of the run at the start of s of
// characters that end no mention: not JavaScript's \s, a backquote, a
// comma or a dot.
func opencodeMentionRun(s string) int {
	for i, r := range s {
		if r == '`' || r == ',' || r == '.' || jsSpace(r) {
			return i
		}
	}
	return len(s)
}

// opencodeMentions are the paths text @-mentions as OpenCode finds them:
// an @ not preceded by a word character or a backquote, then the path,
// each one once.
func opencodeMentions(text string) []string {
	var out []string
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || (i > 0 && opencodeWordOrTick(text[i-1])) {
			continue
		}
		m := opencodeMentionAt(text[i+1:])
		if m != "" && !slices.Contains(out, m) {
			out = append(out, m)
		}
		i += len(m)
	}
	return out
}

// opencodeWordOrTick reports whether b is JavaScript's \w or a backquote.
func opencodeWordOrTick(b byte) bool {
	return b == '_' || b == '`' || ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') || ('0' <= b && b <= '9')
}

// opencodeMentionPath is where OpenCode reads a mention: under the home
// folder for one starting with ~/, else resolved against the worktree.
func opencodeMentionPath(worktree, m string) (string, error) {
	if rest, ok := strings.CutPrefix(m, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", malformed("a mention of %q: no home folder: %v", m, err)
		}
		return filepath.Join(home, rest), nil
	}
	return opencodeResolve(worktree, m), nil
}

// opencodeInstructionNames are the instruction files OpenCode's read tool
// looks for in each folder, the first that exists winning.
var opencodeInstructionNames = []string{"AGENTS.md", "CLAUDE.md", "CONTEXT.md"}

// opencodeInstructionFiles are the files OpenCode 1.18.33's read tool
// reads besides path and hands the model with its result (Instruction.
// resolve): in each folder from path's own up to, not including, the
// directory its tools run in (a prefix of the text, without a separator),
// the first of AGENTS.md, CLAUDE.md and CONTEXT.md that exists, links
// followed. They are judged as reads like the file itself: one that is a
// link the agent made (a confined command may make any link inside the
// workspace) to a file outside would otherwise be read unasked. A link
// whose target is missing is named too (OpenCode skips it, but its
// target may appear before the read) and the search goes on to the next
// name, as OpenCode's does. It goes on past a CLAUDE.md too: under
// OPENCODE_DISABLE_CLAUDE_CODE or OPENCODE_DISABLE_CLAUDE_CODE_PROMPT
// OpenCode skips that name and reads the folder's CONTEXT.md instead.
func opencodeInstructionFiles(cwd, path string) []string {
	if !strings.HasPrefix(cwd, "/") || !strings.HasPrefix(path, "/") {
		return nil
	}
	root := filepath.Clean(cwd)
	var files []string
	for dir := filepath.Dir(filepath.Clean(path)); strings.HasPrefix(dir, root) && dir != root; dir = filepath.Dir(dir) {
		for _, name := range opencodeInstructionNames {
			f := filepath.Join(dir, name)
			if _, err := os.Lstat(f); err != nil {
				continue
			}
			files = append(files, f)
			if _, err := os.Stat(f); err == nil && name != "CLAUDE.md" {
				break
			}
		}
	}
	return files
}
