package guard

import (
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// invocation is one simple command to analyse, with its name resolved.
type invocation struct {
	name string
	args []arg // after the name
	cwd  string
	dir  dirState
	stmt *syntax.Stmt
}

// stay is the result of a command that leaves the directory state alone.
func (inv *invocation) stay() []dirState { return []dirState{inv.dir} }

// handler works out the accesses of one command and returns the possible
// directory states after it succeeds.
type handler func(sa *shellAnalyzer, inv *invocation) []dirState

// commands is the table of commands whose arguments the guard understands.
// A command missing from it is judged by the unknown-command rule. It is
// filled by init because wrappers recurse through it.
var commands map[string]handler

func init() {
	commands = buildCommands()
}

// buildCommands merges the program tables into one. A name in two tables
// would silently take whichever came last, so it is a panic instead.
func buildCommands() map[string]handler {
	out := map[string]handler{}
	add := func(name string, h handler) {
		if _, dup := out[name]; dup {
			panic("guard: program " + name + " is in two program tables")
		}
		out[name] = h
	}
	for name, f := range fileCommands {
		add(name, f.handle)
	}
	for _, name := range noPathCommands {
		add(name, noPaths)
	}
	for name, why := range unprovableCommands {
		add(name, refuse(why))
	}
	for name, h := range specialCommands {
		add(name, h)
	}
	for name, h := range varCommands {
		add(name, h)
	}
	for name, r := range refusingCommands {
		switch name {
		case "tar":
			add(name, tarCommand(refusingCommand(r)))
		case "rsync":
			add(name, rsyncCommand(refusingCommand(r)))
		default:
			add(name, refusingCommand(r))
		}
	}
	for name, in := range interpreters {
		add(name, in.handle)
	}
	for name, w := range wrappers {
		add(name, w.handle)
	}
	for _, name := range shells {
		add(name, shellCommand)
	}
	return out
}

// call analyses one simple command in one directory state.
func (sa *shellAnalyzer) call(ce *syntax.CallExpr, s *syntax.Stmt, d dirState) []dirState {
	for _, as := range ce.Assigns {
		sa.substs(as, []dirState{d})
		sa.assign(as, d)
	}
	args := sa.expand(ce.Args, d, true)
	if len(args) == 0 {
		return []dirState{d}
	}
	return sa.run(args, d, s)
}

// run dispatches args (name first) to the command's handler. A name with a
// slash is a program file: executing it is an access of its own, unless it
// lives in a system binary directory, where it is the command of that name.
func (sa *shellAnalyzer) run(args []arg, d dirState, s *syntax.Stmt) []dirState {
	name := args[0]
	cwd := d.cwd
	inv := &invocation{name: name.val, args: args[1:], cwd: cwd, dir: d, stmt: s}
	if !name.known {
		sa.unprove(fmt.Sprintf("the command name %s is not literal", name.val))
		return []dirState{d}
	}
	if name.pipe {
		sa.unprove("a process substitution run as a program")
		return []dirState{d}
	}
	if strings.Contains(name.val, "/") {
		if !systemBinDirs[filepath.Dir(filepath.Clean(name.val))] {
			sa.path(OpExecute, name, cwd, accessOpts{})
			return unknownCommand(sa, inv)
		}
		inv.name = filepath.Base(name.val)
	}
	h, ok := commands[inv.name]
	if !ok {
		h = unknownCommand
	}
	return h(sa, inv)
}

var systemBinDirs = map[string]bool{
	"/bin": true, "/sbin": true, "/usr/bin": true, "/usr/sbin": true,
	"/usr/local/bin": true, "/usr/local/sbin": true,
}

func noPaths(sa *shellAnalyzer, inv *invocation) []dirState { return inv.stay() }

func refuse(why string) handler {
	return func(sa *shellAnalyzer, inv *invocation) []dirState {
		sa.unprove(inv.name + " " + why)
		return inv.stay()
	}
}

var noPathCommands = []string{
	"echo", "true", "false", ":", "pwd", "sleep", "date", "whoami", "id",
	"uname", "hostname", "shift", "exit", "return", "wait", "jobs", "type",
	"which", "basename", "dirname", "seq", "yes", "expr", "tput", "clear",
	"umask", "ulimit", "break", "continue",
	"printenv", "nproc", "arch", "tty", "unalias", "kill",
	"disown", "bg", "fg", "times", "logname", "groups", "tr", "cal", "sync",
}

var unprovableCommands = map[string]string{
	"eval":     "runs text the guard cannot see",
	"source":   "runs a file's commands in this shell",
	".":        "runs a file's commands in this shell",
	"xargs":    "builds commands from its input",
	"parallel": "builds commands from its input",
	"watch":    "runs its command through a shell",
	"trap":     "runs text the guard cannot see",
	"sudo":     "runs as another user",
	"doas":     "runs as another user",
	"su":       "runs as another user",
	"pkexec":   "runs as another user",
	"runuser":  "runs as another user",
	"chroot":   "changes the root directory",
	"enable":   "changes shell builtins",
	"builtin":  "is not analysed",
	"fc":       "re-runs history",
	"complete": "stores commands to run for completion",
	"compgen":  "runs completion commands and functions",
	"bind":     "binds keys to commands",
}

var specialCommands = map[string]handler{
	"cd":      cdCommand,
	"pushd":   pushdCommand,
	"popd":    popdCommand,
	"dirs":    dirsCommand,
	"git":     gitCommand,
	"find":    findCommand,
	"sed":     sedCommand,
	"awk":     awkCommand,
	"gawk":    awkCommand,
	"mawk":    awkCommand,
	"cp":      copyCommand(OpRead, OpWrite),
	"install": copyCommand(OpRead, OpWrite),
	"mv":      copyCommand(OpMove, OpMove),
	"ln":      linkCommand,
	"link":    linkCommand,
	"chmod":   chmodCommand,
	"dd":      ddCommand,
	"jq":      jqCommand,
	"uniq":    uniqCommand,
	"test":    testCommand,
	"[":       testCommand,
	"set":     setCommand,
	"shopt":   shoptCommand,
	"hash":    hashCommand,
	"alias":   aliasCommand,
}

// fileCmd describes a command whose positional arguments are files that it
// accesses with one op.
type fileCmd struct {
	opts       optSpec
	op         Op
	skip       int      // leading positionals that are not paths (a pattern, an owner)
	skipUnless []string // options that supply what skip stands for (grep -e)
	tree       []string // options that make the access recursive; "*" means always
	follow     []string // options that make a recursive access follow symlinks
	cwdDefault string   // with no path, the working directory is accessed: "always" or an option
	noFollow   bool
	readVals   []string // options whose values are files read
	writeVals  []string // options whose values are files written
	refuseOpts []string // options that make the command unprovable (refusedOptions)
}

func (f fileCmd) handle(sa *shellAnalyzer, inv *invocation) []dirState {
	p := f.opts.parse(inv.args)
	o := accessOpts{noFollow: f.noFollow}
	o.tree = p.has(f.tree...) || (len(f.tree) > 0 && f.tree[0] == "*")
	o.follow = o.tree && p.has(f.follow...)
	pos := p.pos
	if f.skip > 0 && !p.has(f.skipUnless...) {
		pos = pos[min(f.skip, len(pos)):]
	}
	for _, a := range pos {
		sa.path(f.op, a, inv.cwd, o)
	}
	if len(pos) == 0 && (f.cwdDefault == "always" || (f.cwdDefault != "" && p.has(f.cwdDefault))) {
		sa.path(f.op, arg{val: ".", known: true}, inv.cwd, o)
	}
	for _, a := range p.values(f.readVals...) {
		sa.path(OpRead, a, inv.cwd, accessOpts{})
	}
	for _, a := range p.values(f.writeVals...) {
		sa.path(OpWrite, a, inv.cwd, accessOpts{})
	}
	for _, name := range f.refuseOpts {
		if p.has(name) {
			sa.unprove(fmt.Sprintf("%s --%s: %s", inv.name, name, refusedOptions[name]))
		}
	}
	if f.op == OpDelete {
		for _, a := range pos {
			if c, err := sa.canonical(a.val, inv.cwd, false); a.known && err == nil {
				sa.removed(c)
			}
		}
	}
	return inv.stay()
}

// refusedOptions are options whose value names files or programs the
// guard cannot see: the file names come from inside another file, or the
// option runs a program.
var refusedOptions = map[string]string{
	"files0-from":      "reads the file names to use from a file",
	"compress-program": "runs a program",
	"lesskey-file":     "reads settings that can run an input preprocessor",
	"lesskey-src":      "reads settings that can run an input preprocessor",
	"k":                "reads settings that can run an input preprocessor",
}

var grepOpts = optSpec{
	values: "efmABCdD",
	longValues: []string{"regexp", "file", "max-count", "after-context", "before-context",
		"context", "include", "exclude", "exclude-dir", "exclude-from", "label", "binary-files",
		"devices", "directories", "color", "colour"},
}

var fileCommands = map[string]fileCmd{
	"cat":    {op: OpRead, opts: optSpec{}},
	"tac":    {op: OpRead, opts: optSpec{values: "s"}},
	"nl":     {op: OpRead, opts: optSpec{values: "bdfhilnsvw"}},
	"head":   {op: OpRead, opts: optSpec{values: "nc"}},
	"tail":   {op: OpRead, opts: optSpec{values: "ncs", longValues: []string{"pid", "sleep-interval"}}},
	"less":   {op: OpRead, opts: optSpec{values: "bhjkpPtTxyz#oO", longValues: []string{"log-file", "LOG-FILE", "lesskey-file", "lesskey-src", "tag-file"}}, writeVals: []string{"o", "O", "log-file", "LOG-FILE"}, readVals: []string{"tag-file"}, refuseOpts: []string{"k", "lesskey-file", "lesskey-src"}},
	"more":   {op: OpRead, opts: optSpec{values: "n"}},
	"wc":     {op: OpRead, opts: optSpec{longValues: []string{"files0-from"}}, refuseOpts: []string{"files0-from"}},
	"stat":   {op: OpRead, opts: optSpec{values: "c", longValues: []string{"format", "printf"}}},
	"file":   {op: OpRead, opts: optSpec{values: "mFfeP"}, readVals: []string{"f", "files-from", "m", "magic-file"}},
	"md5sum": {op: OpRead, opts: optSpec{}}, "sha1sum": {op: OpRead, opts: optSpec{}},
	"sha256sum": {op: OpRead, opts: optSpec{}}, "sha512sum": {op: OpRead, opts: optSpec{}},
	"cksum": {op: OpRead, opts: optSpec{}}, "b2sum": {op: OpRead, opts: optSpec{}},
	"sort":     {op: OpRead, opts: optSpec{values: "kotTS", longValues: []string{"key", "output", "field-separator", "temporary-directory", "buffer-size", "files0-from", "compress-program", "random-source", "parallel"}}, readVals: []string{"random-source"}, writeVals: []string{"o", "output", "T", "temporary-directory"}, refuseOpts: []string{"files0-from", "compress-program"}},
	"cut":      {op: OpRead, opts: optSpec{values: "bcdf", longValues: []string{"bytes", "characters", "delimiter", "fields", "output-delimiter"}}},
	"paste":    {op: OpRead, opts: optSpec{values: "d", longValues: []string{"delimiters"}}},
	"diff":     {op: OpRead, opts: optSpec{values: "CUFIxXSLD", longValues: []string{"label", "exclude", "ignore-matching-lines"}}, tree: []string{"r", "recursive"}, readVals: []string{"X", "exclude-from", "from-file", "to-file"}},
	"cmp":      {op: OpRead, opts: optSpec{values: "in"}},
	"comm":     {op: OpRead, opts: optSpec{}},
	"od":       {op: OpRead, opts: optSpec{values: "AjNtSw"}},
	"xxd":      {op: OpRead, opts: optSpec{values: "cglsno"}},
	"hexdump":  {op: OpRead, opts: optSpec{values: "efns"}, readVals: []string{"f"}},
	"strings":  {op: OpRead, opts: optSpec{values: "ntTe"}},
	"base64":   {op: OpRead, opts: optSpec{values: "w"}},
	"column":   {op: OpRead, opts: optSpec{values: "cstoNRHlOEWdJn"}},
	"fold":     {op: OpRead, opts: optSpec{values: "w"}},
	"fmt":      {op: OpRead, opts: optSpec{values: "wpg"}},
	"expand":   {op: OpRead, opts: optSpec{values: "t"}},
	"rev":      {op: OpRead, opts: optSpec{}},
	"readlink": {op: OpRead, opts: optSpec{}, noFollow: true},
	"realpath": {op: OpRead, opts: optSpec{longValues: []string{"relative-to", "relative-base"}}},
	"grep":     {op: OpRead, opts: grepOpts, skip: 1, skipUnless: []string{"e", "f", "regexp", "file"}, tree: []string{"r", "R", "recursive", "dereference-recursive"}, follow: []string{"R", "dereference-recursive"}, cwdDefault: "r", readVals: []string{"f", "file", "exclude-from"}},
	"egrep":    {op: OpRead, opts: grepOpts, skip: 1, skipUnless: []string{"e", "f", "regexp", "file"}, tree: []string{"r", "R", "recursive"}, follow: []string{"R"}, cwdDefault: "r", readVals: []string{"f", "file"}},
	"fgrep":    {op: OpRead, opts: grepOpts, skip: 1, skipUnless: []string{"e", "f", "regexp", "file"}, tree: []string{"r", "R", "recursive"}, follow: []string{"R"}, cwdDefault: "r", readVals: []string{"f", "file"}},
	"rg":       {op: OpRead, opts: optSpec{values: "efgtTmABCjMrE", longValues: []string{"regexp", "file", "glob", "iglob", "type", "type-not", "max-count", "after-context", "before-context", "context", "threads", "max-columns", "replace", "encoding", "max-depth", "type-add", "sort", "sortr"}}, skip: 1, skipUnless: []string{"e", "f", "regexp", "file"}, tree: []string{"*"}, follow: []string{"L", "follow"}, cwdDefault: "always", readVals: []string{"f", "file", "ignore-file"}},
	"ls":       {op: OpRead, opts: optSpec{values: "wTI", longValues: []string{"width", "tabsize", "ignore", "hide", "format", "sort", "time", "time-style", "color", "indicator-style", "quoting-style", "block-size"}}, tree: []string{"R", "recursive"}, follow: []string{"L", "dereference"}, cwdDefault: "always"},
	"dir":      {op: OpRead, opts: optSpec{values: "wTI"}, tree: []string{"R", "recursive"}, cwdDefault: "always"},
	"du":       {op: OpRead, opts: optSpec{values: "dBtX", longValues: []string{"max-depth", "block-size", "threshold", "exclude", "time-style", "files0-from", "exclude-from"}}, tree: []string{"*"}, follow: []string{"L", "dereference"}, cwdDefault: "always", readVals: []string{"X", "exclude-from"}, refuseOpts: []string{"files0-from"}},
	"tree":     {op: OpRead, opts: optSpec{values: "LPIoH", longValues: []string{"filelimit", "timefmt", "charset"}}, tree: []string{"*"}, follow: []string{"l"}, cwdDefault: "always", writeVals: []string{"o"}, readVals: []string{"fromfile"}},
	"rm":       {op: OpDelete, opts: optSpec{}, tree: []string{"r", "R", "recursive"}, noFollow: true},
	"rmdir":    {op: OpDelete, opts: optSpec{}, noFollow: true},
	"unlink":   {op: OpDelete, opts: optSpec{}, noFollow: true},
	"shred":    {op: OpDelete, opts: optSpec{values: "nsv", longValues: []string{"iterations", "size", "random-source"}}},
	"tee":      {op: OpWrite, opts: optSpec{longValues: []string{"output-error"}}},
	"touch":    {op: OpWrite, opts: optSpec{values: "dtr", longValues: []string{"date", "reference"}}},
	"mkdir":    {op: OpWrite, opts: optSpec{values: "m", longValues: []string{"mode", "context"}}},
	"mkfifo":   {op: OpWrite, opts: optSpec{values: "m", longValues: []string{"mode"}}},
	"truncate": {op: OpWrite, opts: optSpec{values: "sr", longValues: []string{"size", "reference"}}, readVals: []string{"r", "reference"}},
	"chown":    {op: OpWrite, opts: optSpec{longValues: []string{"from"}}, skip: 1, skipUnless: []string{"reference"}, tree: []string{"R", "recursive"}, readVals: []string{"reference"}},
	"chgrp":    {op: OpWrite, opts: optSpec{}, skip: 1, skipUnless: []string{"reference"}, tree: []string{"R", "recursive"}, readVals: []string{"reference"}},
	"setfacl":  {op: OpWrite, opts: optSpec{values: "mMxX", longValues: []string{"modify", "remove", "set", "set-file"}}, tree: []string{"R", "recursive"}},
}
