package guard

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// dirState is what bash knows about directories at one point of a line:
// the physical working directory relative paths resolve against, the
// logical $PWD that `cd ..` and `~+` use, $OLDPWD for `cd -` and `~-`, and
// the pushd stack (logical paths below the top, joined by NUL so that the
// state stays comparable). "" means unknown for cwd and pwd, unset for old.
type dirState struct {
	cwd, pwd, old string
	stack         string
	stackUnknown  bool
}

// unknownDir is a state the guard cannot follow.
var unknownDir = dirState{stackUnknown: true}

// startDir is the state a line starts in: the policy's working directory,
// with $PWD as the policy spelt it, $OLDPWD unknown, and the empty stack
// of a new shell.
func startDir(cwd, pwd string) dirState {
	if pwd == "" {
		pwd = cwd
	}
	return dirState{cwd: cwd, pwd: pwd}
}

func (d dirState) known() bool { return d.cwd != "" }

func (d dirState) stackList() []string {
	if d.stack == "" {
		return nil
	}
	return strings.Split(d.stack, "\x00")
}

func (d dirState) withStack(list []string) dirState {
	d.stack = strings.Join(list, "\x00")
	return d
}

// flow is the states after a statement: where it may leave bash when it
// succeeds, and when it fails. `a && b` runs b only from a's successes.
type flow struct {
	ok, fail []dirState
}

func same(states []dirState) flow { return flow{ok: states, fail: states} }

func (f flow) all() []dirState { return union(f.ok, f.fail) }

// union merges state sets, keeping order and collapsing to unknown when
// the set grows too large or holds an unknown state.
func union(sets ...[]dirState) []dirState {
	var out []dirState
	for _, set := range sets {
		for _, d := range set {
			if !d.known() {
				return []dirState{unknownDir}
			}
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	if len(out) > maxCwds {
		return []dirState{unknownDir}
	}
	return out
}

// chdir returns the states after `cd target` from d. Bash's default cd is
// logical: `..` removes the previous component of $PWD, not of the real
// directory, and if that fails bash tries the physical path; both are
// possible results. physical is cd -P.
func (sa *shellAnalyzer) chdir(d dirState, target string, physical bool) []dirState {
	if !d.known() || target == "" {
		return []dirState{unknownDir}
	}
	var out []dirState
	next := func(cwd, pwd string) {
		if cwd == "" {
			return
		}
		out = append(out, dirState{cwd: cwd, pwd: pwd, old: d.pwd, stack: d.stack, stackUnknown: d.stackUnknown})
	}
	phys, err := sa.canonical(target, d.cwd, true)
	if err != nil {
		return []dirState{unknownDir}
	}
	next(phys, phys)
	if !physical && d.pwd != "" {
		logical := target
		if !filepath.IsAbs(target) {
			logical = d.pwd + "/" + target
		}
		logical = filepath.Clean(logical)
		if cwd, err := sa.canonical(logical, d.cwd, true); err == nil {
			next(cwd, logical)
		} else {
			return []dirState{unknownDir}
		}
	}
	return union(out)
}

// cdCommand moves the working directory: cd DIR, cd (home), cd - ($OLDPWD),
// with -P physical and -L (the default) logical. A target the guard cannot
// know makes the directory unknown, and so every relative path after it
// unproven.
func cdCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	physical := false
	args := inv.args
	for len(args) > 0 && args[0].known && len(args[0].val) > 1 && args[0].val[0] == '-' {
		if args[0].val == "--" {
			args = args[1:]
			break
		}
		if strings.Trim(args[0].val[1:], "LPe@") != "" {
			return []dirState{unknownDir}
		}
		physical = physical || strings.Contains(args[0].val, "P")
		args = args[1:]
	}
	target := arg{val: "~", known: true}
	if len(args) > 0 {
		target = args[0]
	}
	switch {
	case !target.known || len(args) > 1:
		return []dirState{unknownDir}
	case target.val == "-":
		if inv.dir.old == "" {
			return []dirState{unknownDir}
		}
		target.val = inv.dir.old
	}
	return sa.chdir(inv.dir, target.val, physical)
}

// pushdCommand: pushd DIR pushes $PWD and changes to DIR; pushd alone
// swaps the top two; pushd +N/-N rotates the stack.
func pushdCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	d := inv.dir
	args := inv.args
	if len(args) > 0 && args[0].known && args[0].val == "-n" {
		return []dirState{unknownDir}
	}
	full, ok := fullStack(d)
	switch {
	case !ok:
		return []dirState{unknownDir}
	case len(args) == 0:
		if len(full) < 2 {
			return []dirState{d}
		}
		full[0], full[1] = full[1], full[0]
		return sa.toTop(d, full)
	case !args[0].known || len(args) > 1:
		return []dirState{unknownDir}
	}
	if n, _, ok := stackIndex(args[0].val, len(full)); ok {
		rotated := append(slices.Clone(full[n:]), full[:n]...)
		return sa.toTop(d, rotated)
	}
	var out []dirState
	for _, nd := range sa.chdir(d, args[0].val, false) {
		if !nd.known() {
			return []dirState{unknownDir}
		}
		nd.stack = strings.Join(append([]string{d.pwd}, d.stackList()...), "\x00")
		out = append(out, nd)
	}
	return union(out)
}

// popdCommand: popd removes the top and changes to the new top; popd +N/-N
// removes one entry.
func popdCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	d := inv.dir
	full, ok := fullStack(d)
	switch {
	case !ok || len(inv.args) > 1:
		return []dirState{unknownDir}
	case len(inv.args) == 1:
		a := inv.args[0]
		n, _, isIndex := stackIndex(a.val, len(full))
		if !a.known || !isIndex || len(full) < 2 {
			return []dirState{unknownDir}
		}
		full = slices.Delete(slices.Clone(full), n, n+1)
		if n == 0 {
			return sa.toTop(d, full)
		}
		return []dirState{d.withStack(full[1:])}
	case len(full) < 2:
		return []dirState{d} // popd on an empty stack fails
	}
	return sa.toTop(d, full[1:])
}

// dirsCommand: dirs -c clears the stack; other forms only print.
func dirsCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	for _, a := range inv.args {
		if !a.known {
			return []dirState{unknownDir}
		}
		if strings.HasPrefix(a.val, "-") && strings.Contains(a.val, "c") {
			d := inv.dir
			d.stack, d.stackUnknown = "", false
			return []dirState{d}
		}
	}
	return []dirState{inv.dir}
}

// toTop changes to full[0] and keeps the rest as the stack.
func (sa *shellAnalyzer) toTop(d dirState, full []string) []dirState {
	var out []dirState
	for _, nd := range sa.chdir(d, full[0], false) {
		if !nd.known() {
			return []dirState{unknownDir}
		}
		out = append(out, nd.withStack(full[1:]))
	}
	return union(out)
}

// fullStack is the directory stack as `dirs` prints it: $PWD first.
func fullStack(d dirState) ([]string, bool) {
	if !d.known() || d.stackUnknown || d.pwd == "" {
		return nil, false
	}
	return append([]string{d.pwd}, d.stackList()...), true
}

// stackIndex parses +N (from the left) and -N (from the right) against a
// stack of size n.
func stackIndex(s string, n int) (idx int, fromRight bool, ok bool) {
	if len(s) < 2 || (s[0] != '+' && s[0] != '-') {
		return 0, false, false
	}
	k, err := strconv.Atoi(s[1:])
	if err != nil || k < 0 || k >= n {
		return 0, false, false
	}
	if s[0] == '-' {
		return n - 1 - k, true, true
	}
	return k, false, true
}

// tildeDir returns what a tilde prefix other than ~ and ~user means in d:
// ~+ is $PWD, ~- is $OLDPWD, ~N, ~+N and ~-N are stack entries. ok is false
// when the guard cannot know it.
func tildeDir(d dirState, prefix string) (string, bool) {
	switch prefix {
	case "~+":
		return d.pwd, d.pwd != ""
	case "~-":
		return d.old, d.old != ""
	}
	rest := prefix[1:]
	if rest != "" && rest[0] != '+' && rest[0] != '-' {
		rest = "+" + rest
	}
	full, ok := fullStack(d)
	if !ok {
		return "", false
	}
	n, _, ok := stackIndex(rest, len(full))
	if !ok {
		return "", false
	}
	return full[n], true
}
