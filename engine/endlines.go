package engine

import (
	"fmt"
	"slices"
	"sync"
)

// What a confined command was refused while it ran, by pathgrant rather
// than by the kernel's view (a connection through the proxy, an open the
// held-open file system failed), is said once at its end, on every door:
// endLines keeps those lines by command until then.

// maxEndLines bounds the lines one command's refusals leave for its end,
// one per destination or path, the first ones; maxEndKeys bounds the
// refused paths remembered beyond them, so the refusal scan does not ask
// about them again.
const (
	maxEndLines = 16
	maxEndKeys  = 256
)

// endLines keeps each command's refusal lines, by the command's key (its
// owed check, its held-open token), until its end takes them.
type endLines struct {
	mu    sync.Mutex
	lines map[string][]endLine
}

// endLine is one destination's or path's refusal line.
type endLine struct {
	key, line string
}

func newEndLines() *endLines { return &endLines{lines: map[string][]endLine{}} }

// add keeps one line per key. A key refused again for another reason (a
// tool that retries, denied once and then for the session) keeps its
// place and says the latest reason: what holds now, which is what the
// agent acts on.
func (n *endLines) add(cmd, key, line string) {
	if cmd == "" {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	ls := n.lines[cmd]
	if i := slices.IndexFunc(ls, func(l endLine) bool { return l.key == key }); i >= 0 {
		ls[i].line = line
		return
	}
	if len(ls) >= maxEndKeys {
		return
	}
	n.lines[cmd] = append(ls, endLine{key: key, line: line})
}

// take returns and forgets cmd's lines (the first maxEndLines, and one
// counting the rest) and the keys they were for.
func (n *endLines) take(cmd string) (lines, keys []string) {
	n.mu.Lock()
	ls := n.lines[cmd]
	delete(n.lines, cmd)
	n.mu.Unlock()
	for i, l := range ls {
		keys = append(keys, l.key)
		if i < maxEndLines {
			lines = append(lines, l.line)
		}
	}
	if more := len(ls) - maxEndLines; more > 0 {
		lines = append(lines, fmt.Sprintf("pathgrant: and %d more refused the same way", more))
	}
	return lines, keys
}
