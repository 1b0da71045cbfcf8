package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// arg is one command-line argument after expansion. known is false when its
// value depends on a variable, a command substitution or arithmetic: the
// guard cannot know what it names.
type arg struct {
	val   string
	known bool
	pipe  bool // a process substitution: a pipe, not a file
}

// expand turns words into arguments as bash would: quotes removed, `~`,
// braces and globs expanded against the real file system (so a glob is
// judged by exactly what it matches). It also analyses the substitutions the
// words contain.
func (sa *shellAnalyzer) expand(words []*syntax.Word, d dirState, runSubsts bool) []arg {
	var out []arg
	cwd := d.cwd
	for _, w := range words {
		if runSubsts {
			sa.substs(w, []dirState{d})
		}
		if tw, ok := tildeWord(w, d); !ok {
			out = append(out, arg{val: printWord(w)})
			continue
		} else if tw != nil {
			w = tw
		}
		if len(w.Parts) == 1 {
			if _, ok := w.Parts[0].(*syntax.ProcSubst); ok {
				out = append(out, arg{val: "/dev/fd/63", known: true, pipe: true})
				continue
			}
		}
		if lit, ok := plainLiteral(w); ok {
			out = append(out, arg{val: lit, known: true})
			continue
		}
		if dynamic(w) {
			out = append(out, arg{val: printWord(w)})
			continue
		}
		fields, err := expand.Fields(sa.globConfig(cwd), w)
		if err != nil {
			out = append(out, arg{val: printWord(w)})
			continue
		}
		for _, f := range fields {
			out = append(out, arg{val: f, known: true})
		}
	}
	return out
}

// plainLiteral returns an unquoted word's text when expansion cannot change
// it: no glob, brace, tilde or escape characters. Most words are like this,
// and skipping the expander for them keeps analysis fast.
func plainLiteral(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok || strings.ContainsAny(lit.Value, "*?[]~{}\\") {
		return "", false
	}
	return lit.Value, true
}

// dynamic reports whether the word's value comes from anything but its own
// text: parameters, substitutions, arithmetic, extended globs.
func dynamic(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob:
			found = true
		}
		return !found
	})
	return found
}

func printWord(w *syntax.Word) string {
	var sb strings.Builder
	if err := syntax.NewPrinter().Print(&sb, w); err != nil {
		return "?"
	}
	return sb.String()
}

// globConfig expands only what is static. Globbing reads directories
// relative to cwd; with an unknown cwd a relative glob fails and the
// argument stays unknown.
func (sa *shellAnalyzer) globConfig(cwd string) *expand.Config {
	if cfg, ok := sa.configs[cwd]; ok {
		return cfg
	}
	env := []string{}
	if sa.p.canon.Home != "" {
		env = append(env, "HOME="+sa.p.canon.Home)
	}
	if cwd != "" {
		env = append(env, "PWD="+cwd)
	}
	cfg := &expand.Config{
		Env:      expand.ListEnviron(env...),
		ReadDir2: sa.readDir,
	}
	if sa.configs == nil {
		sa.configs = map[string]*expand.Config{}
	}
	sa.configs[cwd] = cfg
	return cfg
}

var (
	errRelativeGlob = errors.New("relative glob with an unknown working directory")
	errChangedGlob  = errors.New("glob over a folder changed earlier in the line")
)

// readDir lists a folder for globbing as bash will see it. A folder that
// links or moves made earlier in the line touch cannot be listed from disk,
// so its glob stays unknown.
func (sa *shellAnalyzer) readDir(dir string) ([]fs.DirEntry, error) {
	if !filepath.IsAbs(dir) {
		return nil, errRelativeGlob
	}
	if sa.ov.touches(dir) {
		return nil, errChangedGlob
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		// As in bash, a directory that cannot be listed matches nothing and
		// the pattern stays literal.
		return nil, nil
	}
	return entries, nil
}

// path records op on one argument taken as a path. Unknown values and
// malformed paths become unproven parts; "-" is a standard stream.
func (sa *shellAnalyzer) path(op Op, a arg, cwd string, o accessOpts) {
	switch {
	case a.pipe || (a.known && a.val == "-"):
		return
	case !a.known:
		sa.unprove(fmt.Sprintf("%s of %s: the path is not literal", op, a.val))
		return
	case cwd == "" && !filepath.IsAbs(a.val) && !strings.HasPrefix(a.val, "~"):
		sa.unprove(fmt.Sprintf("%s of %s: the working directory is unknown", op, a.val))
		return
	}
	if err := sa.add(sa.p, sa.resolver(cwd), op, a.val, o); err != nil {
		sa.unprove(fmt.Sprintf("%s of %s: %v", op, a.val, err))
		return
	}
	if o.follow && o.tree {
		sa.followLinks(op, len(sa.accesses)-1)
	}
}

// redirect records the file a redirection opens, and analyses heredoc and
// here-string substitutions.
func (sa *shellAnalyzer) redirect(r *syntax.Redirect, d dirState) {
	cwds, cwd := []dirState{d}, d.cwd
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		sa.substs(r.Hdoc, cwds)
		return
	case syntax.WordHdoc:
		sa.substs(r.Word, cwds)
		return
	}
	var ops []Op
	switch r.Op {
	case syntax.RdrIn:
		ops = []Op{OpRead}
	case syntax.RdrInOut:
		ops = []Op{OpRead, OpWrite}
	case syntax.DplIn, syntax.DplOut:
		if lit := r.Word.Lit(); lit == "-" || isDigits(lit) {
			return
		}
		ops = []Op{OpWrite}
	default:
		ops = []Op{OpWrite}
	}
	args := sa.expand([]*syntax.Word{r.Word}, d, true)
	if len(args) != 1 {
		sa.unprove(fmt.Sprintf("redirect target %s is ambiguous", printWord(r.Word)))
		return
	}
	for _, op := range ops {
		sa.path(op, args[0], cwd, accessOpts{})
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// tildeWord handles the tilde prefixes that depend on the directory state
// (~+, ~-, ~N, ~+N, ~-N) and refuses ~user, whose home the guard does not
// look up. It returns nil when the word has no such prefix, and ok false
// when its value cannot be known.
func tildeWord(w *syntax.Word, d dirState) (*syntax.Word, bool) {
	if len(w.Parts) == 0 {
		return nil, true
	}
	lit, isLit := w.Parts[0].(*syntax.Lit)
	if !isLit || !strings.HasPrefix(lit.Value, "~") {
		return nil, true
	}
	prefix, rest, slash := strings.Cut(lit.Value, "/")
	if prefix == "~" {
		return nil, true
	}
	if !slash && len(w.Parts) > 1 {
		return nil, false
	}
	dir, ok := tildeDir(d, prefix)
	if !ok || strings.ContainsAny(dir, "*?[]{}\\~") {
		return nil, false
	}
	if slash {
		dir += "/" + rest
	}
	parts := append([]syntax.WordPart{&syntax.Lit{Value: dir}}, w.Parts[1:]...)
	return &syntax.Word{Parts: parts}, true
}
