package guard

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// unknownCommand is the rule for commands the guard does not model: they
// may do anything inside the workspace, so they must run there and every
// argument that could name a file must stay inside it. Anything else is
// unproven, never eligible for approval.
func unknownCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	sa.requireWorkspaceCwd(inv.name, inv.cwd)
	for _, a := range inv.args {
		sa.externalArg(inv.name, a, inv.cwd, true)
	}
	return inv.stay()
}

func (sa *shellAnalyzer) requireWorkspaceCwd(name, cwd string) {
	switch {
	case cwd == "":
		sa.unprove(name + " runs in an unknown working directory")
	case !sa.p.workspace.contains(cwd):
		sa.unprove(fmt.Sprintf("%s runs outside the workspace (in %s)", name, cwd))
	}
}

// externalArg checks one argument of a command the guard does not model:
// the argument itself as a path (when asPath), an option's value after '=',
// and any path written inside it (@/etc/x, file:///etc/x).
func (sa *shellAnalyzer) externalArg(name string, a arg, cwd string, asPath bool) {
	switch {
	case a.pipe:
		return
	case !a.known:
		sa.unprove(fmt.Sprintf("%s given a non-literal argument %s", name, a.val))
		return
	}
	var candidates []string
	if asPath && !strings.HasPrefix(a.val, "-") {
		candidates = append(candidates, a.val)
	}
	if _, v, ok := strings.Cut(a.val, "="); ok && strings.HasPrefix(a.val, "-") && v != "" {
		candidates = append(candidates, v)
	}
	candidates = append(candidates, pathTokens(a.val)...)
	for _, c := range candidates {
		sa.insideWorkspace(name, c, cwd)
	}
}

func (sa *shellAnalyzer) insideWorkspace(name, path, cwd string) {
	if cwd == "" && !strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "~") {
		sa.unprove(fmt.Sprintf("%s given %s in an unknown working directory", name, path))
		return
	}
	abs, err := sa.p.canon.absolute(path, cwd)
	if err == nil && isDeviceFile(abs) {
		return
	}
	canon, err := sa.canonical(path, cwd, true)
	switch {
	case err != nil:
		sa.unprove(fmt.Sprintf("%s given %s: %v", name, path, err))
	case !sa.p.workspace.contains(canon):
		sa.unprove(fmt.Sprintf("%s given a path outside the workspace: %s", name, canon))
	case sa.p.protected.contains(canon) || sa.p.blockedWrite.contains(canon):
		sa.unprove(fmt.Sprintf("%s given a protected or blocked-write path, which it may change: %s", name, canon))
	}
}

var (
	urlPattern = lazyRegexp(`[A-Za-z][A-Za-z0-9+.-]*://[^\s'"]*`)
	pathToken  = lazyRegexp(`(?:^|[\s'"(=,:;@<>\[{])((?:~|\.\.?)?/[^\s'"(),;:<>\[\]{}|&$*?]+)`)
)

// pathTokens finds absolute, home and parent-relative paths written inside
// a text (an argument or inline program). URLs are not paths, except file:.
func pathTokens(text string) []string {
	text = strings.ReplaceAll(text, "file://", " ")
	text = urlPattern().ReplaceAllString(text, " ")
	var out []string
	for _, m := range pathToken().FindAllStringSubmatch(text, -1) {
		if tok := m[1]; tok != "/" {
			out = append(out, tok)
		}
	}
	return out
}

// scanCode checks an inline program (python -c, perl -e, a sed script) for
// paths outside the workspace. It cannot prove what the program does, only
// refuse what it visibly names.
func (sa *shellAnalyzer) scanCode(name string, code arg, cwd string) {
	if !code.known {
		sa.unprove(fmt.Sprintf("%s program text is not literal", name))
		return
	}
	for _, tok := range pathTokens(code.val) {
		sa.insideWorkspace(name, tok, cwd)
	}
}

// stdinProgram analyses a program an interpreter reads from standard
// input: the last redirection of fd 0 decides what that is (a later `<`
// or a second heredoc replaces an earlier one). A literal heredoc or
// here-string is analysed (as shell text for shells, by scanning
// otherwise); a pipe, a file or an inherited input is unproven.
func (sa *shellAnalyzer) stdinProgram(name string, inv *invocation, shell bool) {
	r := stdinRedirect(inv.stmt)
	if r == nil {
		sa.unprove(name + " reads its program from standard input")
		return
	}
	var w *syntax.Word
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		w = r.Hdoc
	case syntax.WordHdoc:
		w = r.Word
	default:
		sa.unprove(name + " reads its program from a file or stream the guard does not read")
		return
	}
	text, ok := literalText(w)
	switch {
	case !ok:
		sa.unprove(name + " reads a program that is not literal")
	case shell:
		sa.nested(text, inv.dir)
	default:
		sa.scanCode(name, arg{val: text, known: true}, inv.cwd)
	}
}

// stdinRedirect returns the statement's last redirection of fd 0, or nil.
func stdinRedirect(s *syntax.Stmt) *syntax.Redirect {
	if s == nil {
		return nil
	}
	var last *syntax.Redirect
	for _, r := range s.Redirs {
		fd := ""
		if r.N != nil {
			fd = r.N.Value
		}
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if fd == "" || fd == "0" {
				last = r
			}
		case syntax.RdrAll, syntax.AppAll:
		default:
			if fd == "0" {
				last = r
			}
		}
	}
	return last
}

func literalText(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	if dynamic(w) {
		return "", false
	}
	var sb strings.Builder
	syntax.Walk(w, func(n syntax.Node) bool {
		if l, ok := n.(*syntax.Lit); ok {
			sb.WriteString(l.Value)
		}
		if sq, ok := n.(*syntax.SglQuoted); ok {
			sb.WriteString(sq.Value)
		}
		return true
	})
	return sb.String(), true
}
