package guard

import (
	"slices"
	"strings"
)

// optSpec says which options of a command take a value, so that the value
// is not mistaken for a path (head -n 5) and a path given as a value is not
// missed (sort -o FILE).
type optSpec struct {
	values     string   // short options that take a value
	longValues []string // long options that take the next argument as value
}

// parsedArgs is a command line split into options and positionals.
type parsedArgs struct {
	flags map[string]bool
	vals  map[string][]arg
	pos   []arg
}

// has reports whether any of the named flags or valued options was given.
func (p parsedArgs) has(names ...string) bool {
	for _, n := range names {
		if p.flags[n] || len(p.vals[n]) > 0 {
			return true
		}
	}
	return false
}

// values returns the values of all the named options, in the order named.
func (p parsedArgs) values(names ...string) []arg {
	var out []arg
	for _, n := range names {
		out = append(out, p.vals[n]...)
	}
	return out
}

// parse splits args the way getopt_long does with permutation: options may
// follow positionals, "--" ends options, "-" is a positional. An argument
// whose value is unknown is kept as a positional so that it is never
// silently dropped.
func (o optSpec) parse(args []arg) parsedArgs {
	p := parsedArgs{flags: map[string]bool{}, vals: map[string][]arg{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.known || a.pipe || a.val == "-" || !strings.HasPrefix(a.val, "-"):
			p.pos = append(p.pos, a)
		case a.val == "--":
			p.pos = append(p.pos, args[i+1:]...)
			return p
		case strings.HasPrefix(a.val, "--"):
			i = o.long(&p, args, i)
		default:
			i = o.short(&p, args, i)
		}
	}
	return p
}

func (o optSpec) long(p *parsedArgs, args []arg, i int) int {
	name, val, hasVal := strings.Cut(args[i].val[2:], "=")
	switch {
	case hasVal:
		p.vals[name] = append(p.vals[name], arg{val: val, known: true})
	case slices.Contains(o.longValues, name) && i+1 < len(args):
		p.vals[name] = append(p.vals[name], args[i+1])
		return i + 1
	default:
		p.flags[name] = true
	}
	return i
}

func (o optSpec) short(p *parsedArgs, args []arg, i int) int {
	cluster := args[i].val[1:]
	for j, ch := range cluster {
		name := string(ch)
		if !strings.ContainsRune(o.values, ch) {
			p.flags[name] = true
			continue
		}
		if rest := cluster[j+1:]; rest != "" {
			p.vals[name] = append(p.vals[name], arg{val: rest, known: true})
			return i
		}
		if i+1 < len(args) {
			p.vals[name] = append(p.vals[name], args[i+1])
			return i + 1
		}
		return i
	}
	return i
}
