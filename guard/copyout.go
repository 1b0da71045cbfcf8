package guard

import (
	"slices"
	"strings"
)

// A copy out of a folder outside the workspace (tar cf x.tar ~/Documents,
// rsync -a ~/Downloads/ ./dl) reads that folder whole: modelled here for
// the forms whose every option the guard knows, so that the read is
// judged (and, under an eligible root, offered as the folder) like
// cp -r's. Any other form of tar or rsync keeps the unknown-command rule
// with its refused options (archive.go): every argument inside the
// workspace.

// copyOutForm is the part of a command line a modelled form may hold:
// flag letters, the letters that take the next argument (only as a
// cluster's last letter), long flags, and long options with a value.
type copyOutForm struct {
	flags, valueLetters string
	longFlags           []string
	longValues          []string // taken as --name=value, or --name value when in nextValues
	nextValues          []string
	oldStyle            bool // the first argument may be a cluster without a dash
}

// tarCreate is GNU tar creating an archive: no -C, no -h, no file lists,
// no programs; f names the archive.
var tarCreate = copyOutForm{
	flags: "cvzjJa", valueLetters: "f", oldStyle: true,
	longFlags:  []string{"create", "verbose", "gzip", "bzip2", "xz", "zstd", "auto-compress"},
	longValues: []string{"file", "exclude"}, nextValues: []string{"file"},
}

// rsyncLocal is rsync copying between local folders: no remote shell, no
// links followed (-L, -k, -K), no file lists or batches.
var rsyncLocal = copyOutForm{
	flags:      "avrlptgoDzhPnucSHxWiq",
	longFlags:  []string{"archive", "verbose", "recursive", "links", "perms", "times", "group", "owner", "devices", "specials", "compress", "human-readable", "progress", "partial", "dry-run", "update", "checksum", "itemize-changes", "quiet", "delete", "stats"},
	longValues: []string{"exclude", "include"},
}

// parse splits args into the options a form knows and its positionals;
// ok is false when an argument is outside the form (the command then
// keeps the unknown-command rule).
func (f copyOutForm) parse(args []arg) (p parsedArgs, ok bool) {
	p = parsedArgs{flags: map[string]bool{}, vals: map[string][]arg{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.known || a.pipe:
			return p, false
		case i == 0 && f.oldStyle && a.val != "" && !strings.HasPrefix(a.val, "-") && strings.Trim(a.val, f.flags+f.valueLetters) == "":
			a.val = "-" + a.val
			fallthrough
		case strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && len(a.val) > 1:
			next, ok := f.short(&p, args, i, a.val[1:])
			if !ok {
				return p, false
			}
			i = next
		case strings.HasPrefix(a.val, "--") && a.val != "--":
			next, ok := f.long(&p, args, i)
			if !ok {
				return p, false
			}
			i = next
		case a.val == "--":
			return p, false
		default:
			p.pos = append(p.pos, a)
		}
	}
	return p, true
}

func (f copyOutForm) short(p *parsedArgs, args []arg, i int, cluster string) (int, bool) {
	for j, ch := range cluster {
		name := string(ch)
		switch {
		case strings.ContainsRune(f.flags, ch):
			p.flags[name] = true
		case strings.ContainsRune(f.valueLetters, ch) && j == len(cluster)-1 && i+1 < len(args):
			p.vals[name] = append(p.vals[name], args[i+1])
			return i + 1, true
		default:
			return i, false
		}
	}
	return i, true
}

func (f copyOutForm) long(p *parsedArgs, args []arg, i int) (int, bool) {
	name, val, hasVal := strings.Cut(args[i].val[2:], "=")
	switch {
	case hasVal && slices.Contains(f.longValues, name):
		p.vals[name] = append(p.vals[name], arg{val: val, known: true})
	case !hasVal && slices.Contains(f.nextValues, name) && i+1 < len(args):
		p.vals[name] = append(p.vals[name], args[i+1])
		return i + 1, true
	case !hasVal && slices.Contains(f.longFlags, name):
		p.flags[name] = true
	default:
		return i, false
	}
	return i, true
}

// tarCommand models tar creating an archive into one named file from
// sources it reads whole (tar keeps the links it meets, follows none);
// any other use of tar is the unknown-command rule, and so is an archive
// or a source tar does not take as a local path (tarLocal).
func tarCommand(fallback handler) handler {
	return func(sa *shellAnalyzer, inv *invocation) []dirState {
		p, ok := tarCreate.parse(inv.args)
		archive := p.values("f", "file")
		if !ok || !p.has("c", "create") || len(archive) != 1 || len(p.pos) == 0 || !tarLocal(archive[0], p.pos) {
			return fallback(sa, inv)
		}
		for _, src := range p.pos {
			sa.path(OpRead, src, inv.cwd, accessOpts{tree: true})
		}
		sa.path(OpWrite, archive[0], inv.cwd, accessOpts{})
		return inv.stay()
	}
}

// tarLocal reports whether tar takes archive and every source as the local
// path it names: GNU tar writes an archive named host:file through a
// remote shell (rsh, and the network), and bsdtar (macOS's tar) reads a
// source named @file as an archive whose members it copies, a read of
// file itself.
func tarLocal(archive arg, srcs []arg) bool {
	if strings.Contains(archive.val, ":") {
		return false
	}
	return !slices.ContainsFunc(srcs, func(a arg) bool { return strings.HasPrefix(a.val, "@") })
}

// rsyncCommand models a local rsync: every source read whole, the
// destination written (and deleted in, with --delete) whole, the links it
// keeps copied into the destination as cp -a copies them; a remote path,
// a single operand or any other option is the unknown-command rule.
func rsyncCommand(fallback handler) handler {
	return func(sa *shellAnalyzer, inv *invocation) []dirState {
		p, ok := rsyncLocal.parse(inv.args)
		remote := slices.ContainsFunc(p.pos, func(a arg) bool { return strings.Contains(a.val, ":") })
		if !ok || remote || len(p.pos) < 2 {
			return fallback(sa, inv)
		}
		srcs, dst := p.pos[:len(p.pos)-1], p.pos[len(p.pos)-1]
		for _, src := range srcs {
			sa.path(OpRead, src, inv.cwd, accessOpts{tree: true})
		}
		sa.path(OpWrite, dst, inv.cwd, accessOpts{tree: true})
		if p.has("delete") {
			sa.path(OpDelete, dst, inv.cwd, accessOpts{tree: true})
		}
		sa.rsyncResult(inv, srcs, dst, p.has("a", "l", "archive", "links"))
		return inv.stay()
	}
}

// rsyncResult records what a local rsync leaves in its destination for
// the rest of the line: a source with a trailing slash fills the
// destination itself, any other lands inside it; links are copied as
// links when rsync keeps them.
func (sa *shellAnalyzer) rsyncResult(inv *invocation, srcs []arg, dst arg, keepsLinks bool) {
	for _, src := range srcs {
		srcC, err := sa.canonical(src.val, inv.cwd, false)
		if err != nil {
			continue
		}
		locs := sa.destinations(src.val, dst.val, inv.cwd, true, false)
		if strings.HasSuffix(src.val, "/") {
			locs = sa.destinations(src.val, dst.val, inv.cwd, false, true)
		}
		for _, loc := range locs {
			if keepsLinks {
				sa.copyEntry(srcC, loc, inv.cwd)
			} else {
				sa.record(overlayEntry{path: loc, kind: entPlain})
			}
		}
	}
}
