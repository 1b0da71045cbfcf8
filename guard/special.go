package guard

import (
	"path/filepath"
	"slices"
	"strings"
)

// worktreeGit are git subcommands that may rewrite files in the working
// tree (and so a protected file in it); the others write only .git.
var worktreeGit = map[string]bool{
	"checkout": true, "switch": true, "restore": true, "reset": true, "merge": true,
	"pull": true, "rebase": true, "cherry-pick": true, "revert": true, "stash": true,
	"apply": true, "am": true, "clean": true, "rm": true, "mv": true, "clone": true,
	"worktree": true, "submodule": true, "read-tree": true, "checkout-index": true,
}

// readOnlyGit are git subcommands that only read the repository.
var readOnlyGit = map[string]bool{
	"status": true, "log": true, "diff": true, "show": true, "blame": true, "grep": true,
	"ls-files": true, "ls-tree": true, "rev-parse": true, "rev-list": true, "describe": true,
	"shortlog": true, "cat-file": true, "show-ref": true, "whatchanged": true, "help": true,
	"version": true,
}

// safeGitConfig are -c keys that cannot run a program or move the repository.
var safeGitConfig = []string{"user.name", "user.email", "color.", "core.quotepath", "advice.", "init.defaultbranch",
	"log.date", "log.decorate", "log.abbrevcommit", "diff.renames", "diff.algorithm", "column.", "i18n.",
	"safe.directory", "core.autocrlf", "core.safecrlf", "merge.conflictstyle", "pull.rebase", "commit.gpgsign=false"}

// safeGitGlobal are git's global options that move nothing and run nothing.
var safeGitGlobal = map[string]bool{"--no-pager": true, "-P": true, "--no-replace-objects": true,
	"--literal-pathspecs": true, "--glob-pathspecs": true, "--noglob-pathspecs": true, "--icase-pathspecs": true,
	"--no-optional-locks": true, "--version": true, "--help": true, "--no-advice": true, "--no-lazy-fetch": true}

// gitRunsOption are subcommand options that run a program or hook text.
var gitRunsOption = []string{"-x", "--exec", "--extcmd", "--tool", "--upload-pack", "--receive-pack",
	"--template", "--config", "--sequence-editor", "--ext-diff"}

// gitRunsCommand are subcommands that run programs the command line names.
var gitRunsCommand = map[string]bool{"difftool": true, "mergetool": true, "bisect": true, "filter-branch": true,
	"submodule": true, "send-email": true, "web--browse": true, "instaweb": true, "daemon": true, "credential": true,
	"upload-pack": true, "receive-pack": true, "archive": true, "hook": true, "config": true, "var": false}

// gitCommand: git works on the repository at its working directory (moved
// by -C): inspection subcommands read the tree, working-tree subcommands
// write all of it, the rest write only the repository's own data.
// Paths that leave the working directory, and config that can run programs,
// go through the unknown-command rule or are unproven.
func gitCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	cwd, args := inv.cwd, inv.args
	for len(args) > 0 {
		a := args[0]
		if !a.known {
			sa.unprove("git given a non-literal option " + a.val)
			return inv.stay()
		}
		if !strings.HasPrefix(a.val, "-") {
			break
		}
		args = args[1:]
		switch {
		case a.val == "-C" && len(args) > 0:
			from := cwd
			cwd = ""
			if next := sa.chdir(dirState{cwd: from}, args[0].val, true); args[0].known && len(next) == 1 {
				cwd = next[0].cwd
			}
			args = args[1:]
		case a.val == "-c" && len(args) > 0:
			sa.gitConfig(args[0])
			args = args[1:]
		case !safeGitGlobal[a.val]:
			sa.unprove("git " + a.val + " is a global option that may move the repository or run a program")
		}
	}
	if len(args) > 0 && args[0].known && gitRunsCommand[args[0].val] {
		sa.gitRuns(args)
	}
	op, o := OpWrite, accessOpts{}
	switch {
	case len(args) == 0:
		op = OpRead
	case readOnlyGit[args[0].val]:
		op, o.tree = OpRead, true
	case worktreeGit[args[0].val]:
		o.tree = true
	}
	sa.path(op, arg{val: ".", known: true}, cwd, o)
	sa.gitArgs(args, cwd)
	return inv.stay()
}

// gitRuns checks a subcommand that may run programs: git config only
// reads, or sets a safe key; the others are unproven.
func (sa *shellAnalyzer) gitRuns(args []arg) {
	if args[0].val != "config" {
		sa.unprove("git " + args[0].val + " runs programs")
		return
	}
	var pos []arg
	for _, a := range args[1:] {
		switch {
		case !a.known:
			sa.unprove("git config given a non-literal argument")
			return
		case a.val == "--global" || a.val == "--system" || strings.HasPrefix(a.val, "--file") || a.val == "-f" ||
			strings.HasPrefix(a.val, "--blob") || strings.HasPrefix(a.val, "--includes"):
			sa.unprove("git config " + a.val + " reads or writes a file outside the repository")
			return
		case a.val == "--get" || a.val == "--get-all" || a.val == "--get-regexp" || a.val == "-l" || a.val == "--list" || a.val == "get" || a.val == "list":
			return
		case !strings.HasPrefix(a.val, "-"):
			pos = append(pos, a)
		}
	}
	if len(pos) >= 2 {
		sa.gitConfig(arg{val: pos[0].val + "=" + pos[1].val, known: true})
	}
}

func (sa *shellAnalyzer) gitConfig(kv arg) {
	key := strings.ToLower(kv.val)
	for _, safe := range safeGitConfig {
		if kv.known && strings.HasPrefix(key, safe) {
			return
		}
	}
	sa.unprove("git -c " + kv.val + " may run a program")
}

// gitArgs checks a subcommand's arguments: a commit message may be anything,
// every other argument must not name a place outside the workspace.
func (sa *shellAnalyzer) gitArgs(args []arg, cwd string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.known && (a.val == "-m" || a.val == "--message") && i+1 < len(args) {
			i++
			continue
		}
		for _, o := range gitRunsOption {
			if a.known && (a.val == o || strings.HasPrefix(a.val, o+"=") || (len(o) == 2 && strings.HasPrefix(a.val, o) && !strings.HasPrefix(a.val, "--"))) {
				sa.unprove("git " + a.val + " runs a program")
			}
		}
		sa.externalArg("git", a, cwd, i > 0)
	}
}

// findCommand: the leading paths are searched recursively; -delete makes that
// a recursive delete, -fprint writes a file, and -exec cannot be proven.
func findCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	args := inv.args
	o := accessOpts{tree: true}
	for len(args) > 0 && args[0].known && (args[0].val == "-L" || args[0].val == "-H" || args[0].val == "-P") {
		o.follow = o.follow || args[0].val == "-L"
		args = args[1:]
	}
	var roots []arg
	for len(args) > 0 && (!args[0].known || !isFindExpr(args[0].val)) {
		roots, args = append(roots, args[0]), args[1:]
	}
	if len(roots) == 0 {
		roots = []arg{{val: ".", known: true}}
	}
	op := OpRead
	for i, a := range args {
		switch {
		case !a.known:
			continue
		case a.val == "-exec" || a.val == "-execdir" || a.val == "-ok" || a.val == "-okdir":
			sa.unprove("find " + a.val + " runs commands on what it finds")
		case a.val == "-delete":
			op = OpDelete
		case a.val == "-follow":
			o.follow = true
		case strings.HasPrefix(a.val, "-fprint") || a.val == "-fls":
			if i+1 < len(args) {
				sa.path(OpWrite, args[i+1], inv.cwd, accessOpts{})
			}
		}
	}
	for _, r := range roots {
		sa.path(op, r, inv.cwd, o)
		if op == OpDelete {
			sa.path(OpRead, r, inv.cwd, o)
		}
	}
	return inv.stay()
}

func isFindExpr(s string) bool {
	return strings.HasPrefix(s, "-") || s == "(" || s == "!" || s == ")" || s == ","
}

// copyCommand handles cp, install and mv: sources get srcOp, the destination
// (last positional, or -t DIR) gets dstOp. mv acts on its sources' links,
// not their targets. What lands at the destination is recorded for the
// rest of the line (copyResult).
func copyCommand(srcOp, dstOp Op) handler {
	return func(sa *shellAnalyzer, inv *invocation) []dirState {
		p := optSpec{values: "tSmogb", longValues: []string{"target-directory", "suffix", "mode", "owner", "group", "backup"}}.parse(inv.args)
		o := accessOpts{tree: p.has("r", "R", "a", "recursive", "archive")}
		srcOpts := o
		srcOpts.follow = o.tree && p.has("L", "dereference")
		srcOpts.noFollow = srcOp == OpMove
		srcs, dst := p.pos, p.values("t", "target-directory")
		intoDir := len(dst) > 0
		if len(dst) == 0 && len(srcs) > 1 && !p.has("d") {
			srcs, dst = srcs[:len(srcs)-1], srcs[len(srcs)-1:]
		}
		if p.has("d") { // install -d: create directories
			srcs, dst = nil, p.pos
		}
		hard := inv.name == "cp" && p.has("l", "link")
		for _, a := range srcs {
			sa.path(srcOp, a, inv.cwd, srcOpts)
			if hard { // a hard link makes the source writable from the destination
				sa.path(OpWrite, a, inv.cwd, accessOpts{tree: o.tree, noFollow: p.has("P", "d", "no-dereference")})
			}
		}
		for _, a := range dst {
			sa.path(dstOp, a, inv.cwd, o)
		}
		if len(dst) == 1 {
			sa.copyResult(inv, p, srcs, dst[0], intoDir || len(srcs) > 1)
		}
		return inv.stay()
	}
}

// copyResult records what each source leaves at the destination: mv and
// cp -P/-a/-r/-l carry links along (a moved relative link now points
// elsewhere), cp -s makes a link to the source, and mv removes the source.
func (sa *shellAnalyzer) copyResult(inv *invocation, p parsedArgs, srcs []arg, dst arg, intoDir bool) {
	recursive := p.has("r", "R", "a", "recursive", "archive")
	keepsLinks := inv.name == "mv" || p.has("P", "d", "no-dereference", "a", "archive", "l", "link") ||
		(recursive && !p.has("L", "dereference"))
	for _, src := range srcs {
		if !src.known || !dst.known {
			continue
		}
		srcC, err := sa.canonical(src.val, inv.cwd, false)
		if err != nil {
			continue
		}
		for _, loc := range sa.destinations(src.val, dst.val, inv.cwd, intoDir, p.has("T", "no-target-directory")) {
			switch {
			case inv.name == "cp" && p.has("s", "symbolic-link"):
				sa.makeLink(loc, src.val, inv.cwd)
			case keepsLinks:
				sa.copyEntry(srcC, loc, inv.cwd)
			default:
				sa.record(overlayEntry{path: loc, kind: entPlain})
			}
		}
		if inv.name == "mv" {
			sa.removed(srcC)
		}
	}
}

// destinations returns the canonical places (last component not followed)
// where src lands when copied, moved or linked to dst: inside dst when dst
// is a folder, else dst itself; both when the guard cannot tell.
func (sa *shellAnalyzer) destinations(src, dst, cwd string, intoDir, noTargetDir bool) []string {
	var out []string
	add := func(p string) {
		if c, err := sa.canonical(p, cwd, false); err == nil && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	isDir, maybe := sa.dirAt(dst, cwd)
	if !intoDir && (noTargetDir || !isDir || maybe) {
		add(dst)
	}
	if !noTargetDir && (intoDir || isDir || maybe) {
		add(strings.TrimSuffix(dst, "/") + "/" + filepath.Base(src))
	}
	return out
}

// linkCommand: ln, and link (ln without options). A hard link makes its
// target reachable (and writable) from the link's place, so both are
// writes; a hard link to a symlink, like ln -s, makes a new link, whose
// target the session must be allowed to read (makeLink).
func linkCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	p := optSpec{values: "St", longValues: []string{"suffix", "target-directory"}}.parse(inv.args)
	targets, links := p.pos, p.values("t", "target-directory")
	intoDir := len(links) > 0
	switch {
	case len(links) == 0 && len(targets) > 1:
		targets, links = targets[:len(targets)-1], targets[len(targets)-1:]
		intoDir = len(targets) > 1
	case len(links) == 0 && len(targets) == 1:
		links, intoDir = []arg{{val: ".", known: true}}, true
	}
	symbolic := p.has("s", "symbolic")
	for _, a := range targets {
		switch {
		case !a.known:
			sa.unprove("ln target " + a.val + " is not literal")
		case !symbolic:
			sa.path(OpWrite, a, inv.cwd, accessOpts{noFollow: !p.has("L", "logical")})
		}
	}
	for _, a := range links {
		sa.path(OpWrite, a, inv.cwd, accessOpts{noFollow: true})
	}
	if len(links) == 1 && links[0].known {
		sa.linkResult(inv, p, targets, links[0].val, intoDir)
	}
	return inv.stay()
}

// linkResult records the links ln makes, for the rest of the line.
func (sa *shellAnalyzer) linkResult(inv *invocation, p parsedArgs, targets []arg, link string, intoDir bool) {
	symbolic := p.has("s", "symbolic")
	for _, t := range targets {
		if !t.known {
			continue
		}
		text := t.val
		if p.has("r", "relative") && !filepath.IsAbs(text) {
			text = inv.cwd + "/" + text
		}
		for _, loc := range sa.destinations(t.val, link, inv.cwd, intoDir, p.has("T", "no-target-directory", "n", "no-dereference")) {
			sa.path(OpWrite, arg{val: loc, known: true}, inv.cwd, accessOpts{noFollow: true})
			if symbolic {
				sa.makeLink(loc, text, inv.cwd)
				continue
			}
			if src, err := sa.canonical(t.val, inv.cwd, p.has("L", "logical")); err == nil {
				sa.copyEntry(src, loc, inv.cwd)
			}
		}
	}
}

// chmodMode matches a symbolic or octal mode, including modes that start
// with '-' (chmod -x file), which getopt would take for options.
var chmodMode = lazyRegexp(`^[-+=ugoa0-7rwxXst,]+$`)

func chmodCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	var files []arg
	tree, modeSeen := false, false
	for _, a := range inv.args {
		switch {
		case a.known && (a.val == "-R" || a.val == "--recursive"):
			tree = true
		case a.known && strings.HasPrefix(a.val, "--reference="):
			modeSeen = true
			sa.path(OpRead, arg{val: strings.TrimPrefix(a.val, "--reference="), known: true}, inv.cwd, accessOpts{})
		case a.known && !modeSeen && chmodMode().MatchString(a.val):
			modeSeen = true
		case a.known && strings.HasPrefix(a.val, "-") && len(a.val) > 1 && strings.Trim(a.val[1:], "vcfR") == "":
			tree = tree || strings.Contains(a.val, "R")
		default:
			files = append(files, a)
		}
	}
	for _, a := range files {
		sa.path(OpWrite, a, inv.cwd, accessOpts{tree: tree})
	}
	return inv.stay()
}

func ddCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	for _, a := range inv.args {
		if !a.known {
			sa.unprove("dd operand " + a.val + " is not literal")
			continue
		}
		if v, ok := strings.CutPrefix(a.val, "if="); ok {
			sa.path(OpRead, arg{val: v, known: true}, inv.cwd, accessOpts{})
		}
		if v, ok := strings.CutPrefix(a.val, "of="); ok {
			sa.path(OpWrite, arg{val: v, known: true}, inv.cwd, accessOpts{})
		}
	}
	return inv.stay()
}

// jqCommand: the filter is the first positional unless -f gave it;
// --arg/--argjson take two values; --slurpfile/--rawfile read a file.
func jqCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	var files []arg
	filterSeen := false
	args := inv.args
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.known && (a.val == "--arg" || a.val == "--argjson"):
			i += 2
		case a.known && (a.val == "--slurpfile" || a.val == "--rawfile"):
			if i+2 < len(args) {
				sa.path(OpRead, args[i+2], inv.cwd, accessOpts{})
			}
			i += 2
		case a.known && (a.val == "-f" || a.val == "--from-file"):
			sa.unprove("jq reads its filter from a file the guard does not read")
			i++
			filterSeen = true
		case a.known && (a.val == "--args" || a.val == "--jsonargs"):
			i = len(args)
		case a.known && (a.val == "-L" || strings.HasPrefix(a.val, "--library-path") || (strings.HasPrefix(a.val, "-L") && !strings.HasPrefix(a.val, "--"))):
			sa.unprove("jq -L loads modules from a folder")
		case a.known && strings.HasPrefix(a.val, "-") && a.val != "-":
		case !filterSeen:
			filterSeen = true
			if !a.known || strings.Contains(a.val, "import") || strings.Contains(a.val, "include") {
				sa.unprove("jq filter may load modules from the user's files")
			}
		default:
			files = append(files, a)
		}
	}
	for _, f := range files {
		sa.path(OpRead, f, inv.cwd, accessOpts{})
	}
	return inv.stay()
}

// uniqCommand: uniq [INPUT [OUTPUT]].
func uniqCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	p := optSpec{values: "fsw", longValues: []string{"skip-fields", "skip-chars", "check-chars", "group", "all-repeated"}}.parse(inv.args)
	for i, a := range p.pos {
		op := OpRead
		if i == 1 {
			op = OpWrite
		}
		sa.path(op, a, inv.cwd, accessOpts{})
	}
	return inv.stay()
}

// testCommand treats operands that look like paths as reads of metadata.
func testCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	for _, a := range inv.args {
		if !a.known {
			continue
		}
		if strings.ContainsRune(a.val, '/') || strings.HasPrefix(a.val, "~") {
			sa.path(OpRead, a, inv.cwd, accessOpts{})
		}
	}
	return inv.stay()
}
