package guard

import (
	"fmt"
	"io/fs"
	"path/filepath"
)

// maxFollowEntries bounds the walk of a tree whose symlinks a command
// follows (grep -R, cp -L, find -L). A larger tree is unproven.
const maxFollowEntries = 10000

// followLinks adds, for the recursive access at index i, a recursive access
// of the same op on every place a symlink inside the tree leads to, so that
// a link inside an allowed folder cannot carry the command outside it.
func (sa *shellAnalyzer) followLinks(op Op, i int) {
	seen := map[string]bool{}
	queue := []string{sa.accesses[i].Path}
	entries := 0
	for len(queue) > 0 {
		root := queue[0]
		queue = queue[1:]
		if seen[root] {
			continue
		}
		seen[root] = true
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if entries++; entries > maxFollowEntries {
				return fmt.Errorf("more than %d entries", maxFollowEntries)
			}
			if err != nil || d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			target, rerr := resolve(p, true)
			if rerr != nil {
				return fmt.Errorf("symlink %s: %w", p, rerr)
			}
			sa.push(Access{Op: op, Path: target, Requested: p, Tree: true})
			queue = append(queue, target)
			return nil
		})
		if err != nil {
			sa.unprove(fmt.Sprintf("cannot follow the links under %s: %v", sa.accesses[i].Path, err))
			return
		}
	}
}
