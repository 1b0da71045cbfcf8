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
// directory state is a set of possibilities (a `cd` may fail, a branch may
// not run); an unknown state makes every relative path unproven.
type shellAnalyzer struct {
	p *Compiled
	analysis
	depth   int
	configs map[string]*expand.Config // expansion settings per working directory
	ov      *overlay                  // links and moves made earlier in the line
}

// analyzeShell parses text as bash and returns every access it needs.
func analyzeShell(p *Compiled, text string) (analysis, error) {
	sa := &shellAnalyzer{p: p}
	if err := sa.script(text, []dirState{startDir(p.cwd, p.pwd)}); err != nil {
		return analysis{}, err
	}
	return sa.analysis, nil
}

// script analyses one shell text; the outermost one's errors are the
// caller's bad input, nested ones become unproven parts.
func (sa *shellAnalyzer) script(text string, dirs []dirState) error {
	f, err := parseShell(text)
	if err != nil {
		return err
	}
	sa.stmts(f.Stmts, dirs)
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

// nested analyses the literal text of `bash -c` or a heredoc fed to a
// shell. The new shell starts in the caller's directory with $PWD and
// $OLDPWD inherited and an empty stack.
func (sa *shellAnalyzer) nested(text string, d dirState) {
	if sa.depth >= maxShellDepth {
		sa.unprove("shell commands nested too deeply")
		return
	}
	sa.depth++
	defer func() { sa.depth-- }()
	d.stack, d.stackUnknown = "", false
	if err := sa.script(text, []dirState{d}); err != nil {
		sa.unprove(fmt.Sprintf("nested shell text: %v", err))
	}
}

// stmts runs a list in sequence: each statement starts wherever the
// previous one may have left bash, whether it succeeded or not.
func (sa *shellAnalyzer) stmts(list []*syntax.Stmt, dirs []dirState) flow {
	f := same(dirs)
	for i, s := range list {
		if i > 0 {
			dirs = f.all()
		}
		f = sa.stmt(s, dirs)
	}
	return f
}

func (sa *shellAnalyzer) stmt(s *syntax.Stmt, dirs []dirState) flow {
	for _, r := range s.Redirs {
		for _, d := range dirs {
			sa.redirect(r, d)
		}
	}
	f := sa.command(s, dirs)
	switch {
	case s.Background:
		return same(dirs)
	case s.Negated:
		return flow{ok: f.fail, fail: f.ok}
	}
	return f
}

func (sa *shellAnalyzer) command(s *syntax.Stmt, dirs []dirState) flow {
	switch x := s.Cmd.(type) {
	case nil:
		return same(dirs)
	case *syntax.CallExpr:
		var ok []dirState
		for _, d := range dirs {
			ok = union(ok, sa.call(x, s, d))
		}
		return flow{ok: ok, fail: dirs}
	case *syntax.BinaryCmd:
		return sa.binary(x, dirs)
	case *syntax.Subshell:
		sa.stmts(x.Stmts, dirs)
		return same(dirs)
	case *syntax.Block:
		return sa.stmts(x.Stmts, dirs)
	case *syntax.IfClause:
		return sa.ifClause(x, dirs)
	case *syntax.WhileClause:
		return same(sa.loop(dirs, func(c []dirState) []dirState { return sa.stmts(x.Do, sa.stmts(x.Cond, c).all()).all() }))
	case *syntax.ForClause:
		sa.forHeader(x, dirs)
		return same(sa.loop(dirs, func(c []dirState) []dirState { return sa.stmts(x.Do, c).all() }))
	case *syntax.CaseClause:
		sa.substs(x.Word, dirs)
		out := dirs
		for _, item := range x.Items {
			out = union(out, sa.stmts(item.Stmts, dirs).all())
		}
		return same(out)
	case *syntax.TimeClause:
		if x.Stmt == nil {
			return same(dirs)
		}
		return sa.stmt(x.Stmt, dirs)
	case *syntax.CoprocClause:
		sa.stmt(x.Stmt, dirs)
		return same(dirs)
	case *syntax.DeclClause:
		for _, d := range dirs {
			sa.declClause(x, d)
		}
		return same(dirs)
	case *syntax.ArithmCmd, *syntax.LetClause:
		sa.substs(x, dirs)
		sa.arithmAssigns(x)
		return same(dirs)
	case *syntax.TestClause:
		sa.testClause(x, dirs)
		return same(dirs)
	case *syntax.FuncDecl:
		sa.unprove("function definitions are not analysed")
		return same(dirs)
	default:
		sa.unprove(fmt.Sprintf("unsupported shell construct %T", x))
		return same(dirs)
	}
}

// binary handles pipes and && / ||. The right side of && runs only where
// the left succeeded, of || only where it failed. Each side of a pipe runs
// in a subshell, except the last one under `shopt -s lastpipe`, which the
// environment may have set: its directory changes may survive.
func (sa *shellAnalyzer) binary(x *syntax.BinaryCmd, dirs []dirState) flow {
	switch x.Op {
	case syntax.AndStmt:
		fx := sa.stmt(x.X, dirs)
		fy := sa.stmt(x.Y, fx.ok)
		return flow{ok: fy.ok, fail: union(fx.fail, fy.fail)}
	case syntax.OrStmt:
		fx := sa.stmt(x.X, dirs)
		fy := sa.stmt(x.Y, fx.fail)
		return flow{ok: union(fx.ok, fy.ok), fail: fy.fail}
	default:
		sa.stmt(x.X, dirs)
		return same(union(dirs, sa.stmt(x.Y, dirs).all()))
	}
}

func (sa *shellAnalyzer) ifClause(x *syntax.IfClause, dirs []dirState) flow {
	cond := sa.stmts(x.Cond, dirs)
	then := sa.stmts(x.Then, cond.ok)
	switch {
	case x.Else == nil:
		return flow{ok: union(then.ok, cond.fail), fail: then.fail}
	case len(x.Else.Cond) == 0:
		els := sa.stmts(x.Else.Then, cond.fail)
		return flow{ok: union(then.ok, els.ok), fail: union(then.fail, els.fail)}
	}
	els := sa.ifClause(x.Else, cond.fail)
	return flow{ok: union(then.ok, els.ok), fail: union(then.fail, els.fail)}
}

// loop analyses a loop body once; if the body moves the working directory,
// later iterations start somewhere unknown, so the body is analysed again
// from an unknown directory and the result is unknown.
func (sa *shellAnalyzer) loop(dirs []dirState, body func([]dirState) []dirState) []dirState {
	after := body(dirs)
	if slices.Equal(union(dirs, after), dirs) {
		return dirs
	}
	body([]dirState{unknownDir})
	return []dirState{unknownDir}
}

// forHeader analyses the words a for loop iterates over and the variable
// it assigns.
func (sa *shellAnalyzer) forHeader(x *syntax.ForClause, dirs []dirState) {
	sa.substs(x.Loop, dirs)
	if wi, ok := x.Loop.(*syntax.WordIter); ok {
		sa.checkVarName(wi.Name.Value, "a for loop")
	}
}

// testClause treats the operand of a file test ([[ -f path ]]) as a read of
// that path's metadata; other operands only need their substitutions run.
func (sa *shellAnalyzer) testClause(x *syntax.TestClause, dirs []dirState) {
	sa.substs(x, dirs)
	syntax.Walk(x, func(n syntax.Node) bool {
		u, ok := n.(*syntax.UnaryTest)
		if !ok || !fileTests[u.Op] {
			return true
		}
		if w, ok := u.X.(*syntax.Word); ok {
			for _, d := range dirs {
				for _, a := range sa.expand([]*syntax.Word{w}, d, false) {
					sa.path(OpRead, a, d.cwd, accessOpts{})
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
// run whatever the surrounding command does with their output. Parameter
// expansions that assign (${X:=v}) are checked like any assignment.
func (sa *shellAnalyzer) substs(node syntax.Node, dirs []dirState) {
	if w, ok := node.(*syntax.Word); node == nil || (ok && w == nil) {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			sa.stmts(x.Stmts, dirs)
			return false
		case *syntax.ProcSubst:
			sa.stmts(x.Stmts, dirs)
			return false
		case *syntax.ParamExp:
			if x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) && x.Param != nil {
				sa.checkVarName(x.Param.Value, "${...=...}")
			}
		}
		return true
	})
}
