package guard

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// errSedRuns is returned for a sed script that runs shell commands.
var errSedRuns = errors.New("the sed script runs shell commands")

// sedScript is what a sed script opens besides its input: files read (r,
// R) and written (w, W, s///w).
type sedScript struct {
	openedFiles
}

// parseSed reads a GNU sed script command by command. Anything it does not
// recognise is an error, so a file name or command cannot hide in syntax
// the guard skipped.
func parseSed(script string) (sedScript, error) {
	var out sedScript
	s := &sedScanner{text: script}
	for {
		s.skip(" \t\n;")
		if s.done() {
			return out, nil
		}
		if s.peek() == '#' {
			s.toLineEnd()
			continue
		}
		if err := s.addresses(); err != nil {
			return out, err
		}
		if err := s.command(&out); err != nil {
			return out, err
		}
	}
}

type sedScanner struct {
	text string
	i    int
}

func (s *sedScanner) done() bool { return s.i >= len(s.text) }
func (s *sedScanner) peek() byte {
	if s.done() {
		return 0
	}
	return s.text[s.i]
}
func (s *sedScanner) skip(set string) {
	for !s.done() && strings.IndexByte(set, s.text[s.i]) >= 0 {
		s.i++
	}
}

// toLineEnd returns the rest of the line and moves past it.
func (s *sedScanner) toLineEnd() string {
	start := s.i
	for !s.done() && s.text[s.i] != '\n' {
		s.i++
	}
	return s.text[start:s.i]
}

// delimited reads text up to an unescaped delim (after the opening one).
func (s *sedScanner) delimited(delim byte) error {
	for !s.done() {
		switch c := s.text[s.i]; {
		case c == '\\':
			s.i += 2
		case c == delim:
			s.i++
			return nil
		case c == '\n' && delim != '\n':
			return errors.New("unterminated sed expression")
		default:
			s.i++
		}
	}
	return errors.New("unterminated sed expression")
}

// addresses skips zero, one or two addresses and any `!`.
func (s *sedScanner) addresses() error {
	for n := 0; n < 2; n++ {
		if err := s.address(); err != nil {
			return err
		}
		if s.peek() != ',' {
			break
		}
		s.i++
		s.skip(" \t")
		if c := s.peek(); c == '+' || c == '~' {
			s.i++
		}
	}
	s.skip(" \t")
	for s.peek() == '!' {
		s.i++
		s.skip(" \t")
	}
	return nil
}

func (s *sedScanner) address() error {
	switch c := s.peek(); {
	case c >= '0' && c <= '9':
		s.skip("0123456789~")
	case c == '$':
		s.i++
	case c == '/' || c == '\\':
		if c == '\\' {
			s.i++
		}
		if s.done() {
			return errors.New("unterminated sed address")
		}
		d := s.peek()
		s.i++
		if err := s.delimited(d); err != nil {
			return err
		}
		s.skip("IM")
	}
	return nil
}

// command reads one command and what it names.
func (s *sedScanner) command(out *sedScript) error {
	if s.done() {
		return errors.New("sed address without a command")
	}
	c := s.text[s.i]
	s.i++
	switch {
	case strings.IndexByte("{}=dDgGhHnNpPxzF", c) >= 0:
	case strings.IndexByte("qQlL", c) >= 0:
		s.skip(" \t")
		s.skip("0123456789")
	case c == ':' || c == 'b' || c == 't' || c == 'T' || c == 'v':
		s.skip(" \t")
		for !s.done() && s.text[s.i] != '\n' && s.text[s.i] != ';' {
			s.i++
		}
	case c == 'a' || c == 'i' || c == 'c':
		s.text3()
	case c == 'r' || c == 'R' || c == 'w' || c == 'W':
		return s.file(c, out)
	case c == 'e':
		return errSedRuns
	case c == 's':
		return s.substitute(out)
	case c == 'y':
		if s.done() {
			return errors.New("unterminated sed y command")
		}
		d := s.peek()
		s.i++
		if err := s.delimited(d); err != nil {
			return err
		}
		return s.delimited(d)
	default:
		return fmt.Errorf("unknown sed command %q", c)
	}
	return nil
}

// text3 skips the text of a, i or c: to the end of the line, continued
// while a line ends in a backslash.
func (s *sedScanner) text3() {
	for {
		line := s.toLineEnd()
		if !strings.HasSuffix(line, "\\") || s.done() {
			return
		}
		s.i++
	}
}

// file reads the file name of r, R, w or W: the rest of the line.
func (s *sedScanner) file(c byte, out *sedScript) error {
	s.skip(" \t")
	name := s.toLineEnd()
	if name == "" {
		return fmt.Errorf("sed %c without a file name", c)
	}
	if c == 'r' || c == 'R' {
		out.reads = append(out.reads, name)
	} else {
		out.writes = append(out.writes, name)
	}
	return nil
}

// substitute reads s/regex/replacement/flags; the e flag runs the pattern
// space as a command, the w flag writes a file.
func (s *sedScanner) substitute(out *sedScript) error {
	if s.done() || s.peek() == '\n' || s.peek() == '\\' {
		return errors.New("bad sed s delimiter")
	}
	d := s.peek()
	s.i++
	if err := s.delimited(d); err != nil {
		return err
	}
	if err := s.delimited(d); err != nil {
		return err
	}
	for !s.done() {
		switch c := s.text[s.i]; {
		case c == 'e':
			return errSedRuns
		case c == 'w':
			s.i++
			return s.file('w', out)
		case strings.IndexByte("gpiImM0123456789", c) >= 0:
			s.i++
		case strings.IndexByte(" \t\n;}", c) >= 0:
			return nil
		default:
			return fmt.Errorf("unknown sed s flag %q", c)
		}
	}
	return nil
}

// sedArgs is a sed command line: its scripts are the progs of scriptArgs.
type sedArgs struct {
	scriptArgs
	inPlace bool
	suffix  string
}

// parseSedArgs reads sed's options: -e/--expression scripts, -f/--file
// script files, -i/--in-place with an optional glued suffix, and flags.
// Options may follow the operands, as GNU sed allows.
func parseSedArgs(args []arg) sedArgs {
	var out sedArgs
	out.parse(args, true, out.long, out.short)
	return out
}

func (o *sedArgs) long(opt string, next func() arg) {
	name, val, hasVal := strings.Cut(opt, "=")
	value := optValue(val, hasVal, next)
	switch name {
	case "expression":
		o.progs = append(o.progs, value())
	case "file":
		o.progFiles = append(o.progFiles, value())
	case "in-place":
		o.inPlace, o.suffix = true, val
	case "line-length":
		value()
	case "quiet", "silent", "regexp-extended", "separate", "unbuffered", "null-data", "zero-terminated",
		"posix", "sandbox", "debug", "follow-symlinks", "binary", "help", "version":
	default:
		o.bad = "--" + name
	}
}

func (o *sedArgs) short(cluster string, next func() arg) {
	for j := 0; j < len(cluster); j++ {
		rest := cluster[j+1:]
		value := optValue(rest, rest != "", next)
		switch c := cluster[j]; c {
		case 'n', 'r', 'E', 's', 'u', 'z', 'b':
			continue
		case 'e':
			o.progs = append(o.progs, value())
		case 'f':
			o.progFiles = append(o.progFiles, value())
		case 'l':
			value()
		case 'i':
			o.inPlace, o.suffix = true, rest
		default:
			o.bad = "-" + string(c)
		}
		return
	}
}

// sedCommand: the script's own files are accesses like the input files;
// a script that runs commands, comes from a file, or does not parse is
// unproven. -i writes each file, and its backup when a suffix is given.
func sedCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	p := parseSedArgs(inv.args)
	switch {
	case p.bad != "":
		sa.unprove("sed " + p.bad + " is an option the guard does not model")
	case len(p.progFiles) > 0:
		sa.unprove("sed reads its script from a file the guard does not read")
	case strings.Contains(p.suffix, "/"):
		sa.unprove("sed -i puts its backups in another folder")
	}
	for _, s := range p.progs {
		sa.sedScript(s, inv.cwd)
	}
	for _, f := range p.files {
		sa.path(OpRead, f, inv.cwd, accessOpts{})
		if p.inPlace {
			sa.path(OpWrite, f, inv.cwd, accessOpts{})
		}
		if p.inPlace && p.suffix != "" && f.known {
			backup := f.val + p.suffix
			if strings.Contains(p.suffix, "*") {
				backup = filepath.Join(filepath.Dir(f.val), strings.ReplaceAll(p.suffix, "*", filepath.Base(f.val)))
			}
			sa.path(OpWrite, arg{val: backup, known: true}, inv.cwd, accessOpts{})
		}
	}
	return inv.stay()
}

func (sa *shellAnalyzer) sedScript(s arg, cwd string) {
	if !s.known {
		sa.unprove("sed script is not literal")
		return
	}
	script, err := parseSed(s.val)
	if err != nil {
		sa.unprove(fmt.Sprintf("sed script: %v", err))
		return
	}
	sa.opened(script.openedFiles, cwd)
}
