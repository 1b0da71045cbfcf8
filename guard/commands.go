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
	stmt *syntax.Stmt
}

// handler works out the accesses of one command and returns the possible
// working directories after it.
type handler func(sa *shellAnalyzer, inv *invocation) []string

// commands is the table of commands whose arguments the guard understands.
// A command missing from it is judged by the unknown-command rule. It is
// filled by init because wrappers recurse through it.
var commands map[string]handler

func init() {
	commands = map[string]handler{}
	for name, f := range fileCommands {
		commands[name] = f.handle
	}
	for _, name := range noPathCommands {
		commands[name] = noPaths
	}
	for name, why := range unprovableCommands {
		commands[name] = refuse(why)
	}
	for name, h := range specialCommands {
		commands[name] = h
	}
	for name, in := range interpreters {
		commands[name] = in.handle
	}
	for name, w := range wrappers {
		commands[name] = w.handle
	}
	for _, name := range shells {
		commands[name] = shellCommand
	}
}

// call analyses one simple command in one working directory.
func (sa *shellAnalyzer) call(ce *syntax.CallExpr, s *syntax.Stmt, cwd string) []string {
	for _, as := range ce.Assigns {
		sa.substs(as, []string{cwd})
		sa.checkAssign(as.Name.Value)
	}
	args := sa.expand(ce.Args, cwd, true)
	if len(args) == 0 {
		return []string{cwd}
	}
	return sa.run(args, cwd, s)
}

// run dispatches args (name first) to the command's handler. A name with a
// slash is a program file: executing it is an access of its own, unless it
// lives in a system binary directory, where it is the command of that name.
func (sa *shellAnalyzer) run(args []arg, cwd string, s *syntax.Stmt) []string {
	name := args[0]
	inv := &invocation{name: name.val, args: args[1:], cwd: cwd, stmt: s}
	if !name.known {
		sa.unprove(fmt.Sprintf("the command name %s is not literal", name.val))
		return []string{cwd}
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

// loaderVars change which program runs or what it loads; assigning them is
// unproven because the guard would no longer know what a command name means.
var loaderVars = map[string]bool{
	"PATH": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true,
	"BASH_ENV": true, "ENV": true, "CDPATH": true, "IFS": true, "HOME": true,
	"PYTHONPATH": true, "PYTHONSTARTUP": true, "NODE_OPTIONS": true, "NODE_PATH": true,
	"PERL5LIB": true, "PERL5OPT": true, "RUBYOPT": true, "RUBYLIB": true,
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_SSH_COMMAND": true, "GIT_EXEC_PATH": true,
	"GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true, "PROMPT_COMMAND": true,
}

func (sa *shellAnalyzer) checkAssign(name string) {
	if loaderVars[name] {
		sa.unprove(fmt.Sprintf("assigning %s changes what commands run", name))
	}
}

func noPaths(sa *shellAnalyzer, inv *invocation) []string { return []string{inv.cwd} }

func refuse(why string) handler {
	return func(sa *shellAnalyzer, inv *invocation) []string {
		sa.unprove(inv.name + " " + why)
		return []string{inv.cwd}
	}
}

var noPathCommands = []string{
	"echo", "printf", "true", "false", ":", "pwd", "sleep", "date", "whoami", "id",
	"uname", "hostname", "set", "shift", "exit", "return", "wait", "jobs", "type",
	"which", "hash", "basename", "dirname", "seq", "yes", "expr", "tput", "clear",
	"read", "mapfile", "readarray", "getopts", "umask", "ulimit", "break", "continue",
	"printenv", "nproc", "arch", "tty", "unset", "alias", "unalias", "shopt", "kill",
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
}

var specialCommands = map[string]handler{
	"cd":      cdCommand,
	"pushd":   cdCommand,
	"popd":    forgetCwd,
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
	"chmod":   chmodCommand,
	"dd":      ddCommand,
	"jq":      jqCommand,
	"uniq":    uniqCommand,
	"test":    testCommand,
	"[":       testCommand,
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
}

func (f fileCmd) handle(sa *shellAnalyzer, inv *invocation) []string {
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
	return []string{inv.cwd}
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
	"less":   {op: OpRead, opts: optSpec{values: "bhjkpPtTxyz#"}, writeVals: []string{"o", "O", "log-file", "LOG-FILE"}},
	"more":   {op: OpRead, opts: optSpec{values: "n"}},
	"wc":     {op: OpRead, opts: optSpec{}, readVals: []string{"files0-from"}},
	"stat":   {op: OpRead, opts: optSpec{values: "c", longValues: []string{"format", "printf"}}},
	"file":   {op: OpRead, opts: optSpec{values: "mFfeP"}, readVals: []string{"f", "files-from", "m", "magic-file"}},
	"md5sum": {op: OpRead, opts: optSpec{}}, "sha1sum": {op: OpRead, opts: optSpec{}},
	"sha256sum": {op: OpRead, opts: optSpec{}}, "sha512sum": {op: OpRead, opts: optSpec{}},
	"cksum": {op: OpRead, opts: optSpec{}}, "b2sum": {op: OpRead, opts: optSpec{}},
	"sort":     {op: OpRead, opts: optSpec{values: "kotTS", longValues: []string{"key", "output", "field-separator", "temporary-directory", "buffer-size"}}, readVals: []string{"files0-from"}, writeVals: []string{"o", "output", "T", "temporary-directory"}},
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
	"du":       {op: OpRead, opts: optSpec{values: "dBtX", longValues: []string{"max-depth", "block-size", "threshold", "exclude", "time-style"}}, tree: []string{"*"}, follow: []string{"L", "dereference"}, cwdDefault: "always", readVals: []string{"X", "exclude-from", "files0-from"}},
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
