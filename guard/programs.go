package guard

import (
	"strings"
)

var shells = []string{"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh"}

// shellCommand: `bash -c TEXT` analyses TEXT; `bash FILE` executes FILE with
// the rest as its arguments; a shell with neither reads standard input.
func shellCommand(sa *shellAnalyzer, inv *invocation) []string {
	args := inv.args
	command := false
options:
	for len(args) > 0 && args[0].known && (strings.HasPrefix(args[0].val, "-") || strings.HasPrefix(args[0].val, "+")) {
		a := args[0]
		args = args[1:]
		switch {
		case a.val == "--" || a.val == "-":
			break options
		case a.val == "-o" || a.val == "+o" || a.val == "-O" || a.val == "+O":
			args = args[min(1, len(args)):]
		case a.val == "--rcfile" || a.val == "--init-file":
			sa.unprove(inv.name + " " + a.val + " runs another file first")
			args = args[min(1, len(args)):]
		case strings.HasPrefix(a.val, "--"):
		case strings.ContainsRune(a.val, 'c'):
			command = true
		case strings.ContainsRune(a.val, 's'):
			args = nil
		}
	}
	switch {
	case command && len(args) == 0:
		sa.unprove(inv.name + " -c without text")
	case command && !args[0].known:
		sa.unprove(inv.name + " -c with text the guard cannot see")
	case command:
		sa.nested(args[0].val, inv.cwd)
	case len(args) == 0:
		sa.stdinProgram(inv.name, inv.cwd, inv.stmt, true)
	default:
		sa.runScript(inv.name, args, inv.cwd)
	}
	return []string{inv.cwd}
}

// runScript executes args[0] as a program file; the rest are its arguments,
// checked by the unknown-command rule.
func (sa *shellAnalyzer) runScript(name string, args []arg, cwd string) {
	sa.path(OpExecute, args[0], cwd, accessOpts{})
	sa.requireWorkspaceCwd(name, cwd)
	for _, a := range args[1:] {
		sa.externalArg(name, a, cwd, true)
	}
}

// interp describes a language interpreter's command line.
type interp struct {
	code     string   // short options whose value is program text (-c, -e)
	longCode []string // long options whose value is program text
	values   string   // other short options that take a value
	module   string   // short option that runs a module by name (python -m)
	inPlace  string   // short option that edits the file arguments (perl -i)
}

var interpreters = map[string]interp{
	"python":  {code: "c", values: "WXQ", module: "m"},
	"python3": {code: "c", values: "WXQ", module: "m"},
	"python2": {code: "c", values: "WXQ", module: "m"},
	"node":    {code: "ep", longCode: []string{"eval", "print"}, values: "r", module: ""},
	"nodejs":  {code: "ep", longCode: []string{"eval", "print"}, values: "r"},
	"perl":    {code: "eE", values: "IMmx", inPlace: "i"},
	"ruby":    {code: "e", values: "IrCEF", inPlace: "i"},
	"php":     {code: "rBRFE", values: "cdz"},
	"lua":     {code: "e", values: "l"},
	"Rscript": {code: "e"},
	"tclsh":   {},
}

// handle walks the interpreter's options up to the program: inline text is
// scanned, a script file is executed, a module runs with checked arguments,
// and no program at all means standard input.
func (in interp) handle(sa *shellAnalyzer, inv *invocation) []string {
	args := inv.args
	sa.requireWorkspaceCwd(inv.name, inv.cwd)
	inPlace := false
	for len(args) > 0 {
		a := args[0]
		if !a.known {
			sa.unprove(inv.name + " given a non-literal argument " + a.val)
			return []string{inv.cwd}
		}
		if a.val == "-" || !strings.HasPrefix(a.val, "-") {
			break
		}
		args = args[1:]
		if a.val == "--" {
			break
		}
		kind, value, rest := in.option(a.val, args)
		args = rest
		switch kind {
		case "code":
			sa.scanCode(inv.name, value, inv.cwd)
			sa.programArgs(inv.name, args, inv.cwd, inPlace)
			return []string{inv.cwd}
		case "module":
			sa.programArgs(inv.name, args, inv.cwd, false)
			return []string{inv.cwd}
		case "inplace":
			inPlace = true
		}
	}
	switch {
	case len(args) == 0 || args[0].val == "-":
		sa.stdinProgram(inv.name, inv.cwd, inv.stmt, false)
	default:
		sa.runScript(inv.name, args, inv.cwd)
	}
	return []string{inv.cwd}
}

// option classifies one option of an interpreter and consumes its value.
func (in interp) option(opt string, args []arg) (kind string, value arg, rest []arg) {
	if name, v, ok := strings.Cut(strings.TrimPrefix(opt, "--"), "="); strings.HasPrefix(opt, "--") {
		for _, lc := range in.longCode {
			if name == lc && ok {
				return "code", arg{val: v, known: true}, args
			}
			if name == lc && len(args) > 0 {
				return "code", args[0], args[1:]
			}
		}
		return "", arg{}, args
	}
	cluster := opt[1:]
	for i, ch := range cluster {
		glued := cluster[i+1:]
		switch {
		case strings.ContainsRune(in.code, ch), strings.ContainsRune(in.module, ch):
			kind = "code"
			if strings.ContainsRune(in.module, ch) {
				kind = "module"
			}
			if glued != "" {
				return kind, arg{val: glued, known: true}, args
			}
			if len(args) > 0 {
				return kind, args[0], args[1:]
			}
			return kind, arg{val: "", known: true}, args
		case strings.ContainsRune(in.values, ch):
			if glued == "" && len(args) > 0 {
				args = args[1:]
			}
			return "", arg{}, args
		case strings.ContainsRune(in.inPlace, ch):
			return "inplace", arg{}, args
		}
	}
	return "", arg{}, args
}

// programArgs checks the arguments after inline code: files edited in place
// are written; anything else goes through the unknown-command rule.
func (sa *shellAnalyzer) programArgs(name string, args []arg, cwd string, inPlace bool) {
	for _, a := range args {
		if inPlace && !strings.HasPrefix(a.val, "-") {
			sa.path(OpRead, a, cwd, accessOpts{})
			sa.path(OpWrite, a, cwd, accessOpts{})
			continue
		}
		sa.externalArg(name, a, cwd, true)
	}
}

// wrapper describes a command that runs another command (env, timeout,
// nohup): its own options are skipped and the wrapped command is analysed
// as if it stood alone.
type wrapper struct {
	values     string // short options that take a value
	operands   int    // positionals before the command (timeout DURATION)
	assigns    bool   // NAME=VALUE operands come before the command (env)
	cwdOption  string // option that sets the wrapped command's directory (env -C)
	stopFlags  string // flags after which nothing runs (command -v)
	refuseOpts string // options that make the command unprovable (env -S)
}

var wrappers = map[string]wrapper{
	"env":      {values: "uCS", assigns: true, cwdOption: "C", refuseOpts: "S"},
	"command":  {stopFlags: "vV"},
	"exec":     {values: "a"},
	"nohup":    {},
	"timeout":  {values: "sk", operands: 1},
	"nice":     {values: "n"},
	"ionice":   {values: "cnp"},
	"stdbuf":   {values: "ioe"},
	"time":     {values: "fo"},
	"setsid":   {},
	"chronic":  {},
	"unbuffer": {},
}

func (w wrapper) handle(sa *shellAnalyzer, inv *invocation) []string {
	args, cwd := inv.args, inv.cwd
	for len(args) > 0 && args[0].known && strings.HasPrefix(args[0].val, "-") && args[0].val != "-" {
		a := args[0]
		args = args[1:]
		if a.val == "--" {
			break
		}
		for i, ch := range a.val[1:] {
			switch {
			case strings.HasPrefix(a.val, "--"):
			case strings.ContainsRune(w.stopFlags, ch):
				return []string{inv.cwd}
			case strings.ContainsRune(w.refuseOpts, ch):
				sa.unprove(inv.name + " -" + string(ch) + " splits its text into a command")
			case strings.ContainsRune(w.values, ch):
				value := a.val[2+i:]
				if value == "" && len(args) > 0 {
					value, args = args[0].val, args[1:]
				}
				if strings.ContainsRune(w.cwdOption, ch) {
					cwd = cdCommand(sa, &invocation{name: "cd", args: []arg{{val: value, known: true}}, cwd: cwd})[0]
				}
			default:
				continue
			}
			break
		}
	}
	args = args[min(w.operands, len(args)):]
	for w.assigns && len(args) > 0 && args[0].known && strings.Contains(args[0].val, "=") {
		name, _, _ := strings.Cut(args[0].val, "=")
		sa.checkAssign(name)
		args = args[1:]
	}
	if len(args) == 0 {
		return []string{inv.cwd}
	}
	sa.run(args, cwd, inv.stmt)
	return []string{inv.cwd}
}
