package guard

import (
	"fmt"
	"strings"
)

// awkToken is one token of an awk program: a string literal (its value),
// a regex literal, a word (name, keyword or number), or punctuation.
type awkToken struct {
	kind byte // 's' string, 'r' regex, 'w' word, 'p' punctuation, 'n' newline
	text string
}

// lexAwk splits an awk program into tokens. A slash starts a regex where
// an operand is expected and is division after one; a regex holding a
// quote is refused, so that a misread slash cannot hide a string.
func lexAwk(prog string) ([]awkToken, error) {
	var out []awkToken
	operand := func() bool {
		if len(out) == 0 {
			return false
		}
		t := out[len(out)-1]
		switch {
		case t.kind == 's' || t.kind == 'r':
			return true
		case t.kind == 'w':
			return !awkKeywords[t.text]
		}
		return t.text == ")" || t.text == "]" || t.text == "$" || t.text == "++" || t.text == "--"
	}
	for i := 0; i < len(prog); {
		c := prog[i]
		switch {
		case c == '\\' && i+1 < len(prog) && prog[i+1] == '\n':
			i += 2
		case c == ' ' || c == '\t':
			i++
		case c == '\n' || c == ';':
			out = append(out, awkToken{'n', string(c)})
			i++
		case c == '#':
			for i < len(prog) && prog[i] != '\n' {
				i++
			}
		case c == '"':
			val, n, err := awkString(prog[i:])
			if err != nil {
				return nil, err
			}
			out, i = append(out, awkToken{'s', val}), i+n
		case c == '/' && !operand():
			j := i + 1
			for j < len(prog) && prog[j] != '/' {
				if prog[j] == '\\' {
					j++
				}
				if j < len(prog) && (prog[j] == '"' || prog[j] == '\n') {
					return nil, fmt.Errorf("a regex holding a quote or a newline")
				}
				j++
			}
			if j >= len(prog) {
				return nil, fmt.Errorf("unterminated regex")
			}
			out, i = append(out, awkToken{'r', prog[i+1 : j]}), j+1
		case isWordByte(c) || c == '.':
			j := i
			for j < len(prog) && (isWordByte(prog[j]) || prog[j] == '.') {
				j++
			}
			out, i = append(out, awkToken{'w', prog[i:j]}), j
		default:
			n := 1
			if i+1 < len(prog) && awkOps[prog[i:i+2]] {
				n = 2
			}
			out, i = append(out, awkToken{'p', prog[i : i+n]}), i+n
		}
	}
	return out, nil
}

// awkString reads a string literal at the start of s and returns its value
// and length, with the escapes that matter for file names undone.
func awkString(s string) (string, int, error) {
	var sb strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			return sb.String(), i + 1, nil
		case '\n':
			return "", 0, fmt.Errorf("newline in a string")
		case '\\':
			if i+1 >= len(s) {
				return "", 0, fmt.Errorf("unterminated string")
			}
			i++
			switch s[i] {
			case '"', '\\', '/':
				sb.WriteByte(s[i])
			default:
				return "", 0, fmt.Errorf("escape \\%c in a string", s[i])
			}
		default:
			sb.WriteByte(s[i])
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

// awkKeywords are words after which an operand (so a regex) may follow.
var awkKeywords = map[string]bool{"print": true, "printf": true, "return": true, "in": true,
	"case": true, "if": true, "while": true, "for": true, "do": true, "else": true, "getline": true,
	"delete": true, "exit": true, "BEGIN": true, "END": true}

// awkProgram is what an awk program does besides reading its input: files
// it reads (getline <) and writes (print >).
type awkProgram struct {
	openedFiles
}

// parseAwk finds every way an awk program reaches a file. Redirections
// must name a string literal; running a command (system, pipes), and the
// names that change what awk opens (ARGV, PROCINFO, @include), are errors.
func parseAwk(prog string) (awkProgram, error) {
	var out awkProgram
	toks, err := lexAwk(prog)
	if err != nil {
		return out, err
	}
	for i, t := range toks {
		switch {
		case t.kind == 'w' && (t.text == "ARGV" || t.text == "PROCINFO" || t.text == "extension"):
			return out, fmt.Errorf("awk program changes what awk opens (%s)", t.text)
		case t.kind == 'p' && (t.text == "@" || t.text == "|&"):
			return out, fmt.Errorf("awk program uses %s", t.text)
		case t.kind == 'w' && t.text == "system":
			return out, fmt.Errorf("awk program runs commands (system)")
		case t.kind == 'w' && t.text == "getline":
			if err := out.getline(toks, i); err != nil {
				return out, err
			}
		case t.kind == 'w' && (t.text == "print" || t.text == "printf"):
			if err := out.print(toks, i); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// getline: "cmd" | getline runs a command (refused); getline [var] <
// "file" reads file.
func (out *awkProgram) getline(toks []awkToken, i int) error {
	if i > 0 && toks[i-1].text == "|" {
		return fmt.Errorf("awk program runs commands (| getline)")
	}
	j := i + 1
	if j < len(toks) && toks[j].kind == 'w' && !awkKeywords[toks[j].text] {
		j++
	}
	if j < len(toks) && toks[j].text == "<" {
		if j+1 >= len(toks) || toks[j+1].kind != 's' {
			return fmt.Errorf("awk getline reads a file that is not a literal")
		}
		out.reads = append(out.reads, toks[j+1].text)
	}
	return nil
}

// print: a > or >> or | outside parentheses redirects; its target must be
// one string literal ending the statement.
func (out *awkProgram) print(toks []awkToken, i int) error {
	depth := 0
	for j := i + 1; j < len(toks); j++ {
		t := toks[j]
		switch {
		case t.text == "(" || t.text == "[":
			depth++
		case t.text == ")" || t.text == "]":
			depth--
		case depth == 0 && (t.kind == 'n' || t.text == "}"):
			return nil
		case depth == 0 && (t.text == ">" || t.text == ">>" || t.text == "|"):
			if j+1 >= len(toks) || toks[j+1].kind != 's' || (j+2 < len(toks) && toks[j+2].kind != 'n' && toks[j+2].text != "}") {
				return fmt.Errorf("awk print redirects to a target that is not a string literal")
			}
			if t.text == "|" {
				return fmt.Errorf("awk program runs commands (print |)")
			}
			out.writes = append(out.writes, toks[j+1].text)
			return nil
		}
	}
	return nil
}

// awkArgs is an awk command line.
type awkArgs struct {
	scriptArgs
}

// parseAwkArgs reads awk's options: -f program files, -e/--source program
// text (gawk), -v and -F values, and harmless flags; any other option is
// unknown to the guard. The first operand ends the options: the ones after
// it are the program's.
func parseAwkArgs(args []arg) awkArgs {
	var out awkArgs
	out.parse(args, false, out.long, out.short)
	return out
}

func (o *awkArgs) long(opt string, next func() arg) {
	name, val, hasVal := strings.Cut(opt, "=")
	value := optValue(val, hasVal, next)
	switch name {
	case "source":
		o.progs = append(o.progs, value())
	case "file":
		o.progFiles = append(o.progFiles, value())
	case "assign", "field-separator":
		value()
	case "posix", "traditional", "characters-as-bytes", "sandbox", "re-interval", "lint", "version", "help":
	default:
		o.bad = "--" + name
	}
}

func (o *awkArgs) short(opt string, next func() arg) {
	c, rest := opt[0], opt[1:]
	value := optValue(rest, rest != "", next)
	switch c {
	case 'e':
		o.progs = append(o.progs, value())
	case 'f':
		o.progFiles = append(o.progFiles, value())
	case 'v', 'F':
		value()
	case 'b', 'c', 'P', 'r', 'S', 's', 'N', 'n', 'M', 'O', 't', 'V', 'h':
		if rest != "" {
			o.bad = "-" + opt
		}
	default:
		o.bad = "-" + opt
	}
}

// awkCommand: the files the program names are accesses; a program the guard cannot read (-f, not literal, not
// parsed) is unproven.
func awkCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	p := parseAwkArgs(inv.args)
	switch {
	case p.bad != "":
		sa.unprove(inv.name + " " + p.bad + " is an option the guard does not model")
	case len(p.progFiles) > 0:
		sa.unprove(inv.name + " reads its program from a file the guard does not read")
	}
	for _, prog := range p.progs {
		sa.awkProgram(inv.name, prog, inv.cwd)
	}
	for _, f := range p.files {
		if f.known && strings.Contains(f.val, "=") && !strings.Contains(f.val, "/") {
			continue // a var=value assignment operand
		}
		sa.path(OpRead, f, inv.cwd, accessOpts{})
	}
	return inv.stay()
}

func (sa *shellAnalyzer) awkProgram(name string, prog arg, cwd string) {
	if !prog.known {
		sa.unprove(name + " program text is not literal")
		return
	}
	a, err := parseAwk(prog.val)
	if err != nil {
		sa.unprove(fmt.Sprintf("%s program: %v", name, err))
		return
	}
	sa.opened(a.openedFiles, cwd)
}

// awkOps are awk's two-character operators.
var awkOps = map[string]bool{">>": true, "|&": true, "&&": true, "||": true, "++": true, "--": true,
	"<=": true, ">=": true, "!=": true, "==": true, "+=": true, "-=": true, "*=": true, "/=": true,
	"%=": true, "^=": true, "**": true}

func isWordByte(b byte) bool {
	return b == '_' || (b >= '0' && b <= '9') || (b|0x20 >= 'a' && b|0x20 <= 'z')
}
