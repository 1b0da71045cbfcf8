package guard

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

const (
	// maxShellDepth bounds nested `bash -c` analysis; deeper is unproven.
	maxShellDepth = 8
	// maxCwds bounds the working directories tracked at once; beyond it
	// the working directory is unknown and relative paths are unproven.
	maxCwds = 8
)

// shellAnalyzer walks a parsed command and collects what it touches. The
// working directory is a set of possibilities (a `cd` may fail, a branch may
// not run); "" in the set means unknown.
type shellAnalyzer struct {
	p *Compiled
	analysis
	depth   int
	configs map[string]*expand.Config // expansion settings per working directory
}

// analyzeShell parses text as bash and returns every access it needs.
func analyzeShell(p *Compiled, text string) (analysis, error) {
	sa := &shellAnalyzer{p: p}
	if err := sa.script(text, []string{p.cwd}); err != nil {
		return analysis{}, err
	}
	return sa.analysis, nil
}

// script analyses one shell text; the outermost one's errors are the
// caller's bad input, nested ones become unproven parts.
func (sa *shellAnalyzer) script(text string, cwds []string) error {
	f, err := parseShell(text)
	if err != nil {
		return err
	}
	sa.stmts(f.Stmts, cwds)
	return nil
}

func parseShell(text string) (*syntax.File, error) {
	if strings.IndexByte(text, 0) >= 0 {
		return nil, fmt.Errorf("%w: command contains a NUL byte", ErrBadRequest)
	}
	if strings.IndexByte(text, '\r') >= 0 {
		// The parser reads CR LF as LF even inside quotes, where bash keeps
		// the CR: the guard would judge another path than bash opens.
		return nil, fmt.Errorf("%w: command contains a carriage return", ErrBadRequest)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		return nil, fmt.Errorf("%w: unparsable shell: %v", ErrBadRequest, err)
	}
	if len(f.Stmts) == 0 {
		return nil, fmt.Errorf("%w: empty command", ErrBadRequest)
	}
	return f, nil
}

// nested analyses the literal text of `bash -c` or a heredoc fed to a shell.
func (sa *shellAnalyzer) nested(text string, cwd string) {
	if sa.depth >= maxShellDepth {
		sa.unprove("shell commands nested too deeply")
		return
	}
	sa.depth++
	defer func() { sa.depth-- }()
	if err := sa.script(text, []string{cwd}); err != nil {
		sa.unprove(fmt.Sprintf("nested shell text: %v", err))
	}
}

// stmts runs a list in sequence. Any statement may fail without changing
// the directory, so the next one sees the union of before and after.
func (sa *shellAnalyzer) stmts(list []*syntax.Stmt, cwds []string) []string {
	for _, s := range list {
		cwds = union(cwds, sa.stmt(s, cwds))
	}
	return cwds
}

func (sa *shellAnalyzer) stmt(s *syntax.Stmt, cwds []string) []string {
	for _, r := range s.Redirs {
		for _, cwd := range cwds {
			sa.redirect(r, cwd)
		}
	}
	after := sa.command(s, cwds)
	if s.Background {
		return cwds
	}
	return after
}

func (sa *shellAnalyzer) command(s *syntax.Stmt, cwds []string) []string {
	switch x := s.Cmd.(type) {
	case nil:
		return cwds
	case *syntax.CallExpr:
		var out []string
		for _, cwd := range cwds {
			out = union(out, sa.call(x, s, cwd))
		}
		return out
	case *syntax.BinaryCmd:
		return sa.binary(x, cwds)
	case *syntax.Subshell:
		sa.stmts(x.Stmts, cwds)
		return cwds
	case *syntax.Block:
		return sa.stmts(x.Stmts, cwds)
	case *syntax.IfClause:
		return sa.ifClause(x, cwds)
	case *syntax.WhileClause:
		return sa.loop(cwds, func(c []string) []string { return sa.stmts(x.Do, sa.stmts(x.Cond, c)) })
	case *syntax.ForClause:
		sa.substs(x.Loop, cwds)
		return sa.loop(cwds, func(c []string) []string { return sa.stmts(x.Do, c) })
	case *syntax.CaseClause:
		sa.substs(x.Word, cwds)
		out := cwds
		for _, item := range x.Items {
			out = union(out, sa.stmts(item.Stmts, cwds))
		}
		return out
	case *syntax.TimeClause:
		if x.Stmt == nil {
			return cwds
		}
		return sa.stmt(x.Stmt, cwds)
	case *syntax.CoprocClause:
		sa.stmt(x.Stmt, cwds)
		return cwds
	case *syntax.DeclClause, *syntax.ArithmCmd, *syntax.LetClause:
		sa.substs(x, cwds)
		return cwds
	case *syntax.TestClause:
		sa.testClause(x, cwds)
		return cwds
	case *syntax.FuncDecl:
		sa.unprove("function definitions are not analysed")
		return cwds
	default:
		sa.unprove(fmt.Sprintf("unsupported shell construct %T", x))
		return cwds
	}
}

// binary handles pipes and && / ||. Each side of a pipe runs in a subshell;
// the right side of && runs only where the left succeeded.
func (sa *shellAnalyzer) binary(x *syntax.BinaryCmd, cwds []string) []string {
	switch x.Op {
	case syntax.AndStmt:
		return union(cwds, sa.stmt(x.Y, sa.stmt(x.X, cwds)))
	case syntax.OrStmt:
		left := sa.stmt(x.X, cwds)
		return union(left, sa.stmt(x.Y, cwds))
	default:
		sa.stmt(x.X, cwds)
		sa.stmt(x.Y, cwds)
		return cwds
	}
}

func (sa *shellAnalyzer) ifClause(x *syntax.IfClause, cwds []string) []string {
	cond := sa.stmts(x.Cond, cwds)
	out := union(cond, sa.stmts(x.Then, cond))
	if x.Else != nil {
		out = union(out, sa.ifClause(x.Else, cond))
	}
	return out
}

// loop analyses a loop body once; if the body moves the working directory,
// later iterations start somewhere unknown, so the body is analysed again
// from an unknown directory and the result is unknown.
func (sa *shellAnalyzer) loop(cwds []string, body func([]string) []string) []string {
	after := body(cwds)
	if slices.Equal(union(cwds, after), cwds) {
		return cwds
	}
	body([]string{""})
	return []string{""}
}

// testClause treats the operand of a file test ([[ -f path ]]) as a read of
// that path's metadata; other operands only need their substitutions run.
func (sa *shellAnalyzer) testClause(x *syntax.TestClause, cwds []string) {
	sa.substs(x, cwds)
	syntax.Walk(x, func(n syntax.Node) bool {
		u, ok := n.(*syntax.UnaryTest)
		if !ok || !fileTests[u.Op] {
			return true
		}
		if w, ok := u.X.(*syntax.Word); ok {
			for _, cwd := range cwds {
				for _, a := range sa.expand([]*syntax.Word{w}, cwd, false) {
					sa.path(OpRead, a, cwd, accessOpts{})
				}
			}
		}
		return true
	})
}

var fileTests = map[syntax.UnTestOperator]bool{
	syntax.TsExists: true, syntax.TsRegFile: true, syntax.TsDirect: true,
	syntax.TsCharSp: true, syntax.TsBlckSp: true, syntax.TsNmPipe: true,
	syntax.TsSocket: true, syntax.TsSmbLink: true, syntax.TsSticky: true,
	syntax.TsUIDSet: true, syntax.TsGIDSet: true, syntax.TsGrpOwn: true,
	syntax.TsUsrOwn: true, syntax.TsModif: true, syntax.TsRead: true,
	syntax.TsWrite: true, syntax.TsExec: true, syntax.TsNoEmpty: true,
}

// substs analyses every command and process substitution inside node: they
// run whatever the surrounding command does with their output.
func (sa *shellAnalyzer) substs(node syntax.Node, cwds []string) {
	if w, ok := node.(*syntax.Word); node == nil || (ok && w == nil) {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			sa.stmts(x.Stmts, cwds)
			return false
		case *syntax.ProcSubst:
			sa.stmts(x.Stmts, cwds)
			return false
		}
		return true
	})
}

// union merges directory sets, keeping order and collapsing to unknown when
// the set grows too large.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, d := range b {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if len(out) > maxCwds || slices.Contains(out, "") {
		return []string{""}
	}
	return out
}
