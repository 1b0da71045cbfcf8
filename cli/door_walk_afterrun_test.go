package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"pathgrant/engine"
)

// afterRunEscapes are plants the view cannot stop at wrap time, each
// hidden from the check after the command a way that once worked: behind
// more entries than any bound the check had (hard links: each an entry
// the walk reads, made fast), behind folders made
// unreadable, in files and folders made read-only, behind a taken
// quarantine name, in a common dir without HEAD (the 200,010 entries
// through one door: a property of the check, not of the door). Through
// every door the daemon's check neutralises them and says so; the person's own git
// status and commit then run nothing planted.
func (w *doorWalk) afterRunEscapes() []escape {
	const fsmon = `printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M"`
	rows := []struct {
		name, script, person, said string
		door                       engine.Door
	}{
		{"a plant behind 200,010 entries", `mkdir -p .a/pad && /usr/bin/python3 -c 'import os
for j in range(5): open(".a/f%d" % j, "w").close()
for i in range(200010): os.link(".a/f%d" % (i % 5), ".a/pad/f%07d" % i)' && mkdir -p evil && cp -r .git/objects .git/refs evil/ && ` +
			fsmon + ` > evil/config && echo "$PWD/evil" > .git/commondir`, ".", "evil/config:", engine.DoorExecSession},
		{"a nested repository behind a 0311 folder", `mkdir -p d && git init -q d/n && git -C d/n config core.fsmonitor "touch $M; false" && chmod 0311 d`,
			"d/n", "d/n/.git/config:", ""},
		{"a config 0444 in a 0555 git folder", `git init -q r && git -C r config core.fsmonitor "touch $M; false" && chmod 0444 r/.git/config && chmod 0555 r/.git`,
			"r", "r/.git/config:", ""},
		{"a commondir whose quarantine name is taken", `mkdir .git/commondir.pathgrant-quarantined && mkdir -p evil && cp -r .git/objects .git/refs evil/ && ` +
			fsmon + ` > evil/config && echo "$PWD/evil" > .git/commondir`, ".", "evil/config:", ""},
	}
	var es []escape
	for _, r := range rows {
		es = append(es, escape{name: r.name + " (neutralised after)", said: filepath.Join(w.work, r.said), door: r.door, setup: func(t *testing.T) (string, func(t *testing.T)) {
			mark := filepath.Join(w.root, fmt.Sprintf("MARK-afterrun-%d", w.next()))
			return "export M=" + shellWord(mark) + "; " + r.script, func(t *testing.T) {
				t.Helper()
				personRunsGit(t, filepath.Join(w.work, r.person), w.home)
				if _, err := os.Stat(mark); err == nil {
					t.Errorf("the person's git ran the plant")
				}
				w.clearPlants(t)
			}
		}})
	}
	return es
}

// next numbers the walk's scripts and marks.
func (w *doorWalk) next() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	return w.n
}

// clearPlants removes what afterRunEscapes left in the workspace, so
// that the next row starts from the walk's own repository.
func (w *doorWalk) clearPlants(t *testing.T) {
	t.Helper()
	for _, p := range []string{".a", "evil", "d", "r"} {
		chmodTree(filepath.Join(w.work, p))
		os.RemoveAll(filepath.Join(w.work, p))
	}
	matches, _ := filepath.Glob(filepath.Join(w.work, ".git", "commondir*"))
	for _, m := range matches {
		os.RemoveAll(m)
	}
}

// chmodTree gives the owner every permission under dir.
func chmodTree(dir string) {
	os.Chmod(dir, 0o755)
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if fi != nil && fi.Mode()&os.ModeSymlink == 0 {
			os.Chmod(p, fi.Mode().Perm()|0o700)
		}
		return nil
	})
}
