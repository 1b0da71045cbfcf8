package guard

import (
	"fmt"
	"slices"
	"strings"
)

var shells = []string{"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh"}

// shellCommand: `bash -c TEXT` analyses TEXT; `bash FILE` executes FILE with
// the rest as its arguments; a shell with neither reads standard input.
// Options that read other files first (--rcfile, -i) or change how the
// text is read (-O expand_aliases, -k) are unproven.
func shellCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	args, command, stdin := inv.args, false, false
	for len(args) > 0 && args[0].known && len(args[0].val) > 0 && (args[0].val[0] == '-' || args[0].val[0] == '+') {
		a := args[0]
		args = args[1:]
		if a.val == "--" || a.val == "-" {
			break
		}
		var c, s bool
		args, c, s = sa.shellOption(inv.name, a.val, args)
		command, stdin = command || c, stdin || s
	}
	switch {
	case command && len(args) == 0:
		sa.unprove(inv.name + " -c without text")
	case command && !args[0].known:
		sa.unprove(inv.name + " -c with text the guard cannot see")
	case command:
		sa.nested(args[0].val, inv.dir)
	case stdin || len(args) == 0:
		sa.stdinProgram(inv.name, inv, true)
	default:
		sa.runScript(inv.name, args, inv.cwd)
	}
	return inv.stay()
}

// safeShellLong are long options of a shell that read no other file and
// change nothing the guard relies on.
var safeShellLong = map[string]bool{"--norc": true, "--noprofile": true, "--login": true, "--restricted": true,
	"--noediting": true, "--verbose": true, "--version": true, "--help": true}

// shellOption handles one option word of a shell's command line and
// returns the arguments left, and whether it was -c or -s.
func (sa *shellAnalyzer) shellOption(name, opt string, args []arg) (rest []arg, command, stdin bool) {
	bad := func(why string) { sa.unprove(name + " " + opt + " " + why) }
	switch {
	case opt == "--rcfile" || opt == "--init-file":
		bad("runs another file first")
		return args[min(1, len(args)):], false, false
	case strings.HasPrefix(opt, "--"):
		if !safeShellLong[opt] {
			bad("is an option the guard does not model")
		}
		return args, false, false
	}
	on := opt[0] == '-'
	for _, ch := range opt[1:] {
		switch {
		case ch == 'c':
			command = true
		case ch == 's':
			stdin = true
		case ch == 'o' || ch == 'O':
			if len(args) == 0 {
				continue
			}
			v := args[0]
			args = args[1:]
			safe := (ch == 'o' && safeSetOptions[v.val]) || (ch == 'O' && on && safeShoptOn[v.val]) || (ch == 'O' && !on && safeShoptOff[v.val])
			if !v.known || !safe {
				sa.unprove(fmt.Sprintf("%s -%c %s changes how the shell reads the command", name, ch, v.val))
			}
		case ch == 'i':
			bad("is interactive: it reads the user's start-up files")
		case ch == 'l' || ch == 'r' || strings.ContainsRune(safeSetFlags, ch):
		default:
			bad("is an option the guard does not model")
		}
	}
	return args, command, stdin
}

// runScript executes args[0] as a program file; the rest are its arguments,
// checked by the unknown-command rule. A process substitution as the
// script is program text the guard never sees.
func (sa *shellAnalyzer) runScript(name string, args []arg, cwd string) {
	if args[0].pipe {
		sa.unprove(name + " runs a process substitution as its program")
		return
	}
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
	// long options whose value names a module or file to load
	longValues []string
}

var interpreters = map[string]interp{
	"python":  {code: "c", values: "WXQ", module: "m"},
	"python3": {code: "c", values: "WXQ", module: "m"},
	"python2": {code: "c", values: "WXQ", module: "m"},
	"node":    {code: "ep", longCode: []string{"eval", "print"}, values: "r", longValues: []string{"require", "import", "loader", "experimental-loader", "env-file", "env-file-if-exists"}},
	"nodejs":  {code: "ep", longCode: []string{"eval", "print"}, values: "r", longValues: []string{"require", "import", "loader", "experimental-loader", "env-file", "env-file-if-exists"}},
	"perl":    {code: "eE", values: "IMmx", inPlace: "i"},
	"ruby":    {code: "e", values: "IrCEF", inPlace: "i"},
	"php":     {code: "rBRFE", values: "cdz"},
	"lua":     {code: "e", values: "l"},
	"Rscript": {code: "e"},
	"tclsh":   {},
}

// handle walks the interpreter's options up to the program: inline text is
// scanned, a script file is executed, a module runs with checked arguments,
// option values (-I dir, -r module) are checked like an unknown command's,
// and no program at all means standard input.
func (in interp) handle(sa *shellAnalyzer, inv *invocation) []dirState {
	args := inv.args
	sa.requireWorkspaceCwd(inv.name, inv.cwd)
	inPlace := false
	for len(args) > 0 {
		a := args[0]
		if !a.known {
			sa.unprove(inv.name + " given a non-literal argument " + a.val)
			return inv.stay()
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
			return inv.stay()
		case "module":
			sa.programArgs(inv.name, args, inv.cwd, false)
			return inv.stay()
		case "inplace":
			inPlace = true
		case "value":
			sa.externalArg(inv.name, value, inv.cwd, true)
		}
	}
	switch {
	case len(args) == 0 || args[0].val == "-":
		sa.stdinProgram(inv.name, inv, false)
	default:
		sa.runScript(inv.name, args, inv.cwd)
	}
	return inv.stay()
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
		for _, lv := range in.longValues {
			if name == lv && ok {
				return "value", arg{val: v, known: true}, args
			}
			if name == lv && len(args) > 0 {
				return "value", args[0], args[1:]
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
			if glued != "" {
				return "value", arg{val: glued, known: true}, args
			}
			if len(args) > 0 {
				return "value", args[0], args[1:]
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
// nohup): its own options are read and the wrapped command is analysed as
// if it stood alone. A long option it does not know is unproven.
type wrapper struct {
	values     string   // short options that take a value
	longValues []string // long options that take a value
	longFlags  []string // long options without a value
	operands   int      // positionals before the command (timeout DURATION)
	assigns    bool     // NAME=VALUE operands come before the command (env)
	cwdOption  string   // option that sets the wrapped command's directory (env -C, --chdir)
	unsetOpt   string   // option that unsets a variable (env -u, --unset)
	writeOpt   string   // options whose value is a file written (time -o, --output)
	stopFlags  string   // flags after which nothing runs (command -v)
	refuseOpts string   // options that make the command unprovable (env -S, --split-string)
}

var wrappers = map[string]wrapper{
	"env": {values: "uCS", longValues: []string{"unset", "chdir", "split-string"}, assigns: true, cwdOption: "C chdir",
		unsetOpt: "u unset", refuseOpts: "S split-string",
		longFlags: []string{"ignore-environment", "null", "debug", "help", "version", "block-signal", "default-signal", "ignore-signal", "list-signal-handling"}},
	"command":  {stopFlags: "vV"},
	"exec":     {values: "a"},
	"nohup":    {},
	"timeout":  {values: "sk", longValues: []string{"signal", "kill-after"}, longFlags: []string{"preserve-status", "foreground", "verbose"}, operands: 1},
	"nice":     {values: "n", longValues: []string{"adjustment"}},
	"ionice":   {values: "cnt", longValues: []string{"class", "classdata"}, longFlags: []string{"ignore"}},
	"stdbuf":   {values: "ioe", longValues: []string{"input", "output", "error"}},
	"time":     {values: "fo", longValues: []string{"format", "output"}, longFlags: []string{"append", "portability", "verbose", "quiet"}, writeOpt: "o output"},
	"setsid":   {longFlags: []string{"ctty", "fork", "wait"}},
	"chronic":  {},
	"unbuffer": {},
}

// wrapOpt is one option of a wrapper with its value.
type wrapOpt struct {
	name  string // short letter or long name
	value arg
}

func (w wrapper) handle(sa *shellAnalyzer, inv *invocation) []dirState {
	args, d := inv.args, inv.dir
	for len(args) > 0 && args[0].known && strings.HasPrefix(args[0].val, "-") && args[0].val != "-" {
		a := args[0]
		args = args[1:]
		if a.val == "--" {
			break
		}
		var opts []wrapOpt
		var stop bool
		opts, args, stop = w.options(sa, inv.name, a.val, args)
		if stop {
			return inv.stay()
		}
		for _, o := range opts {
			d = w.apply(sa, inv, o, d)
		}
	}
	args = args[min(w.operands, len(args)):]
	for w.assigns && len(args) > 0 && args[0].known && strings.Contains(args[0].val, "=") {
		name, val, _ := strings.Cut(args[0].val, "=")
		sa.checkEnv(name, arg{val: val, known: true}, d.cwd, inv.name)
		args = args[1:]
	}
	if w.assigns && len(args) > 0 && !args[0].known {
		sa.unprove(inv.name + " given a non-literal operand " + args[0].val)
	}
	if len(args) == 0 {
		return inv.stay()
	}
	sa.run(args, d, inv.stmt)
	return inv.stay()
}

// options splits one option word into options with their values.
func (w wrapper) options(sa *shellAnalyzer, name, word string, args []arg) ([]wrapOpt, []arg, bool) {
	if long, v, hasVal := strings.Cut(word[min(2, len(word)):], "="); strings.HasPrefix(word, "--") {
		switch {
		case slices.Contains(w.longValues, long) && hasVal:
			return []wrapOpt{{long, arg{val: v, known: true}}}, args, false
		case slices.Contains(w.longValues, long) && len(args) > 0:
			return []wrapOpt{{long, args[0]}}, args[1:], false
		case slices.Contains(w.longFlags, long):
			return nil, args, false
		}
		sa.unprove(name + " " + word + " is an option the guard does not model")
		return nil, args, false
	}
	var out []wrapOpt
	for i, ch := range word[1:] {
		switch {
		case strings.ContainsRune(w.stopFlags, ch):
			return nil, args, true
		case strings.ContainsRune(w.values, ch):
			value := arg{val: word[2+i:], known: true}
			if value.val == "" && len(args) > 0 {
				value, args = args[0], args[1:]
			}
			return append(out, wrapOpt{string(ch), value}), args, false
		}
		out = append(out, wrapOpt{name: string(ch)})
	}
	return out, args, false
}

// apply gives one option its effect: a new directory for the wrapped
// command, an unset or written file checked, or a refusal.
func (w wrapper) apply(sa *shellAnalyzer, inv *invocation, o wrapOpt, d dirState) dirState {
	has := func(list string) bool { return slices.Contains(strings.Fields(list), o.name) }
	switch {
	case has(w.refuseOpts):
		sa.unprove(inv.name + " -" + o.name + " splits its text into a command")
	case has(w.cwdOption):
		if !o.value.known {
			return unknownDir
		}
		next := sa.chdir(d, o.value.val, true)
		if len(next) != 1 {
			return unknownDir
		}
		return next[0]
	case has(w.unsetOpt):
		if !o.value.known {
			sa.unprove(inv.name + " unsets a variable whose name is not literal")
		} else {
			sa.checkVarName(o.value.val, inv.name+" -u")
		}
	case has(w.writeOpt):
		sa.path(OpWrite, o.value, d.cwd, accessOpts{})
	}
	return d
}
