package guard

import (
	"errors"
	"fmt"
	"path/filepath"
)

// analysis is what the guard found a request needs: the accesses to judge,
// and every part it could not prove (each one forces a non-eligible deny).
type analysis struct {
	accesses []Access
	unproven []string
}

// accessOpts qualify one access.
type accessOpts struct {
	tree     bool // the access spans the subtree under the path
	noFollow bool // a symlink in the last component is acted on, not followed
	follow   bool // a recursive access that follows symlinks inside the tree
}

// add canonicalises path against cwd and records the access. A path that is
// malformed in itself is an error; one that cannot be resolved on this file
// system (permission denied on a parent, say) is recorded as unproven.
func (a *analysis) add(p *Compiled, r resolver, op Op, path string, o accessOpts) error {
	abs, err := p.canon.absolute(path, r.cwd)
	if err != nil {
		return err
	}
	acc := Access{Op: op, Requested: path, Tree: o.tree}
	streams := op == OpRead || op == OpWrite // devices are read and written, never run, moved or deleted
	if streams && isDeviceFile(abs) {
		acc.Path, acc.Rule = filepath.Clean(abs), RuleDevice
		a.push(acc)
		return nil
	}
	canon, err := r.resolve(abs, !o.noFollow)
	switch {
	case errors.Is(err, ErrBadPath):
		return err
	case err != nil:
		a.unprove(fmt.Sprintf("cannot resolve %s: %v", path, err))
		return nil
	}
	acc.Path = canon
	if streams && isDeviceFile(canon) {
		acc.Rule = RuleDevice
	}
	a.push(acc)
	return nil
}

func (a *analysis) push(acc Access) {
	for _, have := range a.accesses {
		if have.Op == acc.Op && have.Path == acc.Path && have.Tree == acc.Tree {
			return
		}
	}
	a.accesses = append(a.accesses, acc)
}

func (a *analysis) unprove(why string) {
	a.unproven = append(a.unproven, why)
}
