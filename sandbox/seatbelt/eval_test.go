package seatbelt_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// This file is a small evaluator of the SBPL this package writes, for the
// tests alone: it parses a profile and decides an operation as Seatbelt
// does, the last matching rule winning over (deny default). It knows only
// the forms the package writes; a rule for the operation asked about with
// a filter it does not know fails the test rather than being skipped.

// sexp is one parsed form: an atom (a symbol, a string's value, a
// regular expression's text) or a list.
type sexp struct {
	kind byte // 's' symbol, '"' string, '#' regular expression, '(' list
	atom string
	list []sexp
}

// parseProfile reads every top-level form of text.
func parseProfile(t *testing.T, text string) []sexp {
	t.Helper()
	p := &parser{src: text}
	var out []sexp
	for {
		p.skip()
		if p.i >= len(p.src) {
			return out
		}
		e, err := p.form()
		if err != nil {
			t.Fatalf("parse profile at byte %d: %v\n%s", p.i, err, text)
		}
		out = append(out, e)
	}
}

type parser struct {
	src string
	i   int
}

// skip passes white space and ;-comments.
func (p *parser) skip() {
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c == ';':
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		case c == ' ' || c == '\n' || c == '\t':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) form() (sexp, error) {
	switch {
	case p.src[p.i] == '(':
		p.i++
		var l []sexp
		for {
			p.skip()
			if p.i >= len(p.src) {
				return sexp{}, fmt.Errorf("unclosed list")
			}
			if p.src[p.i] == ')' {
				p.i++
				return sexp{kind: '(', list: l}, nil
			}
			e, err := p.form()
			if err != nil {
				return sexp{}, err
			}
			l = append(l, e)
		}
	case p.src[p.i] == '"':
		return p.str()
	case strings.HasPrefix(p.src[p.i:], `#"`):
		end := strings.IndexByte(p.src[p.i+2:], '"')
		if end < 0 {
			return sexp{}, fmt.Errorf("unclosed regular expression")
		}
		e := sexp{kind: '#', atom: p.src[p.i+2 : p.i+2+end]}
		p.i += end + 3
		return e, nil
	case p.src[p.i] == ')':
		return sexp{}, fmt.Errorf("unexpected )")
	}
	start := p.i
	for p.i < len(p.src) && !strings.ContainsRune(" \n\t()\";", rune(p.src[p.i])) {
		p.i++
	}
	return sexp{kind: 's', atom: p.src[start:p.i]}, nil
}

// str reads a string, taking \" and \\ as the profile reader does and
// refusing any other escape (the package must never write one).
func (p *parser) str() (sexp, error) {
	var b strings.Builder
	for p.i++; p.i < len(p.src); p.i++ {
		switch c := p.src[p.i]; c {
		case '"':
			p.i++
			return sexp{kind: '"', atom: b.String()}, nil
		case '\\':
			if p.i+1 >= len(p.src) || (p.src[p.i+1] != '"' && p.src[p.i+1] != '\\') {
				return sexp{}, fmt.Errorf("unknown escape in a string")
			}
			p.i++
			b.WriteByte(p.src[p.i])
		default:
			b.WriteByte(c)
		}
	}
	return sexp{}, fmt.Errorf("unclosed string")
}

// query is one operation to decide: a path for file operations,
// process-exec and Unix sockets; IP for a network operation on an
// address; Name for a mach service or a sysctl.
type query struct {
	Op   string
	Path string
	IP   bool
	Name string
}

func (q query) String() string {
	switch {
	case q.IP:
		return q.Op + " (an IP address)"
	case q.Name != "":
		return q.Op + " " + q.Name
	}
	return q.Op + " " + q.Path
}

// decide is what the profile says of q: true allowed, false denied.
func decide(t *testing.T, forms []sexp, q query) bool {
	t.Helper()
	allowed, sawDefault := false, false
	for _, f := range forms {
		if f.kind != '(' || len(f.list) < 2 || f.list[0].kind != 's' {
			t.Fatalf("not a rule: %+v", f)
		}
		verb := f.list[0].atom
		if verb == "version" {
			continue
		}
		if verb != "allow" && verb != "deny" {
			t.Fatalf("unknown verb %q", verb)
		}
		var ops []string
		rest := f.list[1:]
		for len(rest) > 0 && rest[0].kind == 's' {
			ops = append(ops, rest[0].atom)
			rest = rest[1:]
		}
		if len(ops) == 1 && ops[0] == "default" {
			sawDefault, allowed = true, verb == "allow"
			continue
		}
		if !opMatches(ops, q.Op) {
			continue
		}
		if len(rest) == 0 || anyMatch(t, rest, q) {
			allowed = verb == "allow"
		}
	}
	if !sawDefault {
		t.Fatal("the profile has no (deny default)")
	}
	return allowed
}

// opMatches: an operation named, or a family of them (file-read*).
func opMatches(ops []string, op string) bool {
	for _, o := range ops {
		if o == op || strings.HasSuffix(o, "*") && strings.HasPrefix(op, strings.TrimSuffix(o, "*")) {
			return true
		}
	}
	return false
}

func anyMatch(t *testing.T, filters []sexp, q query) bool {
	t.Helper()
	for _, f := range filters {
		if matches(t, f, q) {
			return true
		}
	}
	return false
}

// network operations are matched only by the address filters (remote,
// local), never by a path filter at the top of a rule.
func isNetwork(op string) bool { return strings.HasPrefix(op, "network") }

func matches(t *testing.T, f sexp, q query) bool {
	t.Helper()
	if f.kind != '(' || len(f.list) == 0 || f.list[0].kind != 's' {
		t.Fatalf("not a filter: %+v", f)
	}
	args := f.list[1:]
	arg := func() string {
		if len(args) != 1 || (args[0].kind != '"' && args[0].kind != '#') {
			t.Fatalf("filter %s: want one string, got %+v", f.list[0].atom, args)
		}
		return args[0].atom
	}
	path := !isNetwork(q.Op) && q.Name == ""
	switch name := f.list[0].atom; name {
	case "literal", "path-literal":
		return path && q.Path == arg()
	case "subpath":
		s := arg()
		return path && (q.Path == s || strings.HasPrefix(q.Path, strings.TrimSuffix(s, "/")+"/"))
	case "regex", "path-regex":
		return path && regexp.MustCompile(arg()).MatchString(q.Path)
	case "require-all":
		return len(args) > 0 && allMatch(t, args, q)
	case "extension":
		return false // no query holds a sandbox extension
	case "remote", "local":
		if len(args) == 0 || args[0].kind != 's' {
			t.Fatalf("filter %s: no address kind", name)
		}
		switch args[0].atom {
		case "ip":
			return isNetwork(q.Op) && q.IP
		case "unix-socket":
			if !isNetwork(q.Op) || q.IP || len(args) != 2 {
				return false
			}
			return matches(t, args[1], query{Op: "file-read-data", Path: q.Path})
		}
		t.Fatalf("filter %s: unknown address kind %q", name, args[0].atom)
	case "global-name", "sysctl-name":
		return q.Name == arg()
	case "sysctl-name-prefix":
		return strings.HasPrefix(q.Name, arg())
	}
	t.Fatalf("the evaluator does not know the filter %q (asked %s)", f.list[0].atom, q)
	return false
}

func allMatch(t *testing.T, filters []sexp, q query) bool {
	for _, f := range filters {
		if !matches(t, f, q) {
			return false
		}
	}
	return true
}

// check is one expectation of a profile.
type check struct {
	q     query
	allow bool
}

// Shorthands for the queries the tables ask.
func read(p string) query    { return query{Op: "file-read-data", Path: p} }
func stat(p string) query    { return query{Op: "file-read-metadata", Path: p} }
func write(p string) query   { return query{Op: "file-write-data", Path: p} }
func create(p string) query  { return query{Op: "file-write-create", Path: p} }
func unlink(p string) query  { return query{Op: "file-write-unlink", Path: p} }
func link(p string) query    { return query{Op: "file-link", Path: p} }
func run(p string) query     { return query{Op: "process-exec", Path: p} }
func mapExec(p string) query { return query{Op: "file-map-executable", Path: p} }
func connect(p string) query { return query{Op: "network-outbound", Path: p} }
func bind(p string) query    { return query{Op: "network-bind", Path: p} }
func mach(n string) query    { return query{Op: "mach-lookup", Name: n} }
func sysctl(n string) query  { return query{Op: "sysctl-read", Name: n} }
func outbound() query        { return query{Op: "network-outbound", IP: true} }
func allow(q query) check    { return check{q, true} }
func refuse(q query) check   { return check{q, false} }

// expect runs the checks against profile.
func expect(t *testing.T, profile string, checks []check) {
	t.Helper()
	forms := parseProfile(t, profile)
	for _, c := range checks {
		if got := decide(t, forms, c.q); got != c.allow {
			t.Errorf("%s: allowed %v, want %v", c.q, got, c.allow)
		}
	}
}
