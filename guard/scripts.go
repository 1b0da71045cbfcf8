package guard

import "strings"

// scriptArgs is the command line of a command whose program is text in
// its own language (awk, sed): program texts and program files given by
// option, and the input files. Both commands take their program from the
// first operand when no option gave one, so the split is the same.
type scriptArgs struct {
	progs, progFiles, files []arg
	bad                     string
}

// parse reads a command line, handing each long option (without "--") to
// long and each short option or cluster (without "-") to short, with a way
// to take the next argument as its value. With permute, options may follow
// operands as GNU getopt allows; without, the first operand ends them.
func (o *scriptArgs) parse(args []arg, permute bool, long, short func(opt string, next func() arg)) {
	var pos []arg
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() arg {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return arg{val: "", known: true}
		}
		switch {
		case !a.known || a.pipe || a.val == "-" || !strings.HasPrefix(a.val, "-") || (!permute && len(pos) > 0):
			pos = append(pos, a)
		case a.val == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a.val, "--"):
			long(a.val[2:], next)
		default:
			short(a.val[1:], next)
		}
	}
	o.operands(pos)
}

// operands takes the program from the first operand when no option gave
// one; the operands after it are the input files.
func (o *scriptArgs) operands(pos []arg) {
	if len(o.progs) == 0 && len(o.progFiles) == 0 && len(pos) > 0 {
		o.progs, pos = pos[:1], pos[1:]
	}
	o.files = pos
}

// optValue returns how an option takes its value: the text glued to it
// (--file=x, -fx) when there is some, else the next argument, so that the
// argument is consumed only by options that take a value.
func optValue(glued string, isGlued bool, next func() arg) func() arg {
	return func() arg {
		if isGlued {
			return arg{val: glued, known: true}
		}
		return next()
	}
}

// openedFiles are the files a program's text opens besides its input
// (awk's getline < and print >, sed's r and w).
type openedFiles struct {
	reads, writes []string
}

// opened judges the files a program opens like the command's own
// operands: the command opens them, so a relative name is resolved against
// the command's directory.
func (sa *shellAnalyzer) opened(f openedFiles, cwd string) {
	for _, name := range f.reads {
		sa.path(OpRead, arg{val: name, known: true}, cwd, accessOpts{})
	}
	for _, name := range f.writes {
		sa.path(OpWrite, arg{val: name, known: true}, cwd, accessOpts{})
	}
}
