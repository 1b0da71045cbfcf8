package guard

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// envKind says what a variable does to the programs that see it, and so
// which values the guard can prove harmless.
type envKind int

const (
	envSafe   envKind = iota // no program reads it as code or file names
	envNever                 // the guard itself relies on it (PATH, HOME, IFS...)
	envCode                  // its value is run, loaded or injected: only "" is harmless
	envPath                  // its value names files: literal paths in the workspace only
	envProg                  // a program run by name (PAGER): a few harmless ones only
	envWord                  // a setting: a plain word, no path, no expansion
	envPrompt                // expanded by the shell (PS4): no $ or ` in it
)

// envExact classifies variables by exact name; envPrefixes by prefix.
// Anything not listed is envSafe.
var envExact = map[string]envKind{
	"PATH": envNever, "HOME": envNever, "IFS": envNever, "CDPATH": envNever, "PWD": envNever,
	"OLDPWD": envNever, "GLOBIGNORE": envNever, "SHELLOPTS": envNever, "BASHOPTS": envNever,
	"POSIXLY_CORRECT": envNever, "BASH_XTRACEFD": envNever, "DIRSTACK": envNever, "EXECIGNORE": envNever,
	"BASH_ENV": envCode, "ENV": envCode, "PROMPT_COMMAND": envCode, "PS0": envPrompt, "PS1": envPrompt,
	"PS2": envPrompt, "PS3": envPrompt, "PS4": envPrompt, "BASH_LOADABLES_PATH": envCode, "INPUTRC": envCode,
	"GCONV_PATH": envCode, "GLIBC_TUNABLES": envCode, "MALLOC_TRACE": envCode, "HOSTALIASES": envCode,
	"NODE_OPTIONS": envCode, "NODE_PATH": envPath, "NODE_REPL_HISTORY": envPath, "NODE_EXTRA_CA_CERTS": envPath,
	"PERL5OPT": envCode, "PERL5LIB": envPath, "PERLLIB": envPath, "PERL5DB": envCode, "PERL_MB_OPT": envCode, "PERL_MM_OPT": envCode,
	"RUBYOPT": envCode, "RUBYLIB": envPath, "GEM_HOME": envPath, "GEM_PATH": envPath, "BUNDLE_GEMFILE": envPath,
	"LESSOPEN": envCode, "LESSCLOSE": envCode, "LESS": envCode, "LESSKEY": envCode, "LESSKEYIN": envCode,
	"LESSKEY_SYSTEM": envCode, "LESSKEYIN_SYSTEM": envCode, "LESSEDIT": envCode, "LESSSECURE": envSafe,
	"MORE": envCode, "MANOPT": envCode, "MANPATH": envPath, "MANPAGER": envProg, "PAGER": envProg,
	"EDITOR": envProg, "VISUAL": envProg, "BROWSER": envCode, "SYSTEMD_PAGER": envProg, "SYSTEMD_EDITOR": envProg,
	"SSH_ASKPASS": envCode, "SUDO_ASKPASS": envCode, "SHELL": envCode, "TERMINFO": envPath, "TERMINFO_DIRS": envPath,
	"TMPDIR": envPath, "TMP": envPath, "TEMP": envPath, "XDG_CONFIG_HOME": envPath, "XDG_CONFIG_DIRS": envPath,
	"XDG_DATA_HOME": envPath, "XDG_CACHE_HOME": envPath, "XDG_STATE_HOME": envPath, "XDG_RUNTIME_DIR": envPath,
	"TAR_OPTIONS": envCode, "GZIP": envCode, "XZ_OPT": envCode, "XZ_DEFAULTS": envCode, "ZSTD_CLEVEL": envWord,
	"BZIP2": envCode, "BZIP": envCode, "ZIPOPT": envCode, "UNZIP": envCode, "RSYNC_RSH": envCode, "RSYNC_CONNECT_PROG": envCode,
	"GREP_OPTIONS": envCode, "SSL_CERT_FILE": envPath, "SSL_CERT_DIR": envPath, "CURL_HOME": envPath,
	"WGETRC": envPath, "NETRC": envPath, "GNUPGHOME": envPath, "JQ_LIBRARY_PATH": envPath,
	"GOFLAGS": envCode, "GOTOOLCHAIN": envWord, "GOROOT": envPath, "GOPATH": envPath, "GOENV": envPath,
	"GOCACHE": envPath, "GOMODCACHE": envPath, "CGO_CFLAGS": envCode, "CGO_LDFLAGS": envCode,
	"CC": envCode, "CXX": envCode, "LD": envCode, "AR": envCode, "MAKEFLAGS": envCode, "MFLAGS": envCode,
	"MAKEFILES": envPath, "RUSTC_WRAPPER": envCode, "RUSTC": envCode, "RUSTFLAGS": envCode, "CARGO_HOME": envPath,
	"NPM_CONFIG_USERCONFIG": envPath, "NPM_CONFIG_GLOBALCONFIG": envPath, "NPM_CONFIG_PREFIX": envPath,
	"NPM_CONFIG_SCRIPT_SHELL": envCode, "npm_config_script_shell": envCode, "npm_config_userconfig": envPath,
	"PIP_CONFIG_FILE": envPath, "VIRTUAL_ENV": envPath, "CONDA_PREFIX": envPath,
}

var envPrefixes = []struct {
	prefix string
	kind   envKind
}{
	{"BASH_FUNC_", envCode}, {"LD_", envCode}, {"GIT_CONFIG", envCode}, {"GIT_SSH", envCode},
	{"GIT_EXTERNAL_DIFF", envCode}, {"GIT_PROXY_COMMAND", envCode}, {"GIT_ASKPASS", envCode},
	{"GIT_EDITOR", envProg}, {"GIT_SEQUENCE_EDITOR", envProg}, {"GIT_PAGER", envProg},
	{"GIT_EXEC_PATH", envCode}, {"GIT_TEMPLATE_DIR", envCode}, {"GIT_DIR", envPath},
	{"GIT_WORK_TREE", envPath}, {"GIT_INDEX_FILE", envPath}, {"GIT_OBJECT_DIRECTORY", envPath},
	{"GIT_ALTERNATE_OBJECT_DIRECTORIES", envPath}, {"GIT_COMMON_DIR", envPath}, {"GIT_CEILING_DIRECTORIES", envPath},
	{"GIT_TRACE", envPath}, {"GIT_NAMESPACE", envWord}, {"GIT_ATTR_SOURCE", envWord},
	{"PYTHONSTARTUP", envCode}, {"PYTHONBREAKPOINT", envCode}, {"PYTHONPATH", envPath},
	{"PYTHONHOME", envPath}, {"PYTHONUSERBASE", envPath}, {"PYTHONPYCACHEPREFIX", envPath},
	{"PYTHONPLATLIBDIR", envPath}, {"PYTHON", envWord}, {"DYLD_", envCode}, {"MALLOC_", envWord},
	{"NODE_", envWord}, {"JAVA_TOOL_OPTIONS", envCode}, {"_JAVA_OPTIONS", envCode}, {"JDK_JAVA_OPTIONS", envCode},
	{"CLASSPATH", envPath}, {"LUA_", envCode}, {"PERL", envWord}, {"RUBY", envWord}, {"XDG_", envPath},
}

// harmlessPrograms may be named by PAGER, EDITOR and the like.
var harmlessPrograms = map[string]bool{"": true, "cat": true, "true": true, "false": true, ":": true, "less": true, "more": true}

func envKindOf(name string) envKind {
	if k, ok := envExact[name]; ok {
		return k
	}
	for _, p := range envPrefixes {
		if strings.HasPrefix(name, p.prefix) {
			return p.kind
		}
	}
	return envSafe
}

// checkEnv checks that setting name to val (for a command, or exported
// from this shell) cannot run code or move files the guard does not see.
func (sa *shellAnalyzer) checkEnv(name string, val arg, cwd, where string) {
	kind := envKindOf(name)
	bad := func(why string) {
		sa.unprove(fmt.Sprintf("%s sets %s, which %s", where, name, why))
	}
	switch {
	case kind == envSafe:
	case kind == envNever:
		bad("the guard's own reading of the command depends on")
	case !val.known:
		bad("is not harmless unless its value is known")
	case kind == envCode && val.val != "":
		bad("makes programs run or load what it names")
	case kind == envProg && !harmlessPrograms[val.val]:
		bad("names a program to run")
	case kind == envWord && strings.ContainsAny(val.val, "/$`\\;|&<>(){} \t\n"):
		bad("must be a plain word")
	case kind == envPrompt && strings.ContainsAny(val.val, "$`\\"):
		bad("the shell expands")
	case kind == envPath:
		sa.envPaths(name, val.val, cwd, bad)
	}
}

// envPaths checks a file or folder list: every entry must be a literal
// path inside the workspace (GIT_TRACE may also be a number or boolean).
func (sa *shellAnalyzer) envPaths(name, val, cwd string, bad func(string)) {
	if strings.HasPrefix(name, "GIT_TRACE") && (isDigits(val) || val == "" || val == "true" || val == "false") {
		return
	}
	if strings.ContainsAny(val, "$`\\*?[") {
		bad("names files by a pattern or expansion")
		return
	}
	for _, p := range strings.Split(val, ":") {
		if p == "" {
			continue
		}
		canon, err := sa.canonical(p, cwd, true)
		if err != nil || !sa.p.workspace.contains(canon) || sa.p.protected.overlaps(canon) || sa.p.blockedWrite.overlaps(canon) {
			bad("names files outside the workspace: " + p)
			return
		}
	}
}

// checkVarName checks a variable that gets a value the guard cannot see
// (read, for, ${X:=...}, export NAME): harmless only for safe names.
func (sa *shellAnalyzer) checkVarName(name, where string) {
	sa.checkEnv(name, arg{val: "$" + name}, "", where)
}

// assign checks one NAME=VALUE, before a command or on its own. Every
// assignment is treated as exported: `set -a` or a later `export NAME`
// would export it.
func (sa *shellAnalyzer) assign(as *syntax.Assign, d dirState) {
	if as.Name == nil {
		return
	}
	name := as.Name.Value
	switch {
	case as.Array != nil || as.Index != nil || as.Append:
		sa.checkVarName(name, "an array or appending assignment")
		return
	case as.Value == nil:
		sa.checkEnv(name, arg{val: "", known: true}, d.cwd, "an assignment")
		return
	}
	text, ok := literalText(as.Value)
	if !ok || strings.Contains(text, "\\") {
		sa.checkVarName(name, "an assignment")
		return
	}
	sa.checkEnv(name, arg{val: text, known: true}, d.cwd, "an assignment")
}

// declClause handles export, declare, typeset, local and readonly: options
// are checked (a nameref redirects later assignments to another name),
// assignments as above, and bare names as getting an unknown value.
func (sa *shellAnalyzer) declClause(x *syntax.DeclClause, d dirState) {
	sa.substs(x, []dirState{d})
	if x.Variant.Value == "nameref" {
		sa.unprove("a nameref makes later assignments set another variable")
		return
	}
	for _, as := range x.Args {
		switch {
		case as.Name == nil && as.Value != nil:
			opt, _ := literalText(as.Value)
			if strings.HasPrefix(opt, "-") && strings.Contains(opt, "n") && x.Variant.Value != "export" {
				sa.unprove(x.Variant.Value + " -n makes later assignments set another variable")
			}
		case as.Naked:
			sa.checkVarName(as.Name.Value, x.Variant.Value)
		default:
			sa.assign(as, d)
		}
	}
}

// arithmAssigns checks variables assigned inside (( )) and let.
func (sa *shellAnalyzer) arithmAssigns(node syntax.Node) {
	syntax.Walk(node, func(n syntax.Node) bool {
		var target syntax.ArithmExpr
		switch x := n.(type) {
		case *syntax.BinaryArithm:
			if arithmAssignOps[x.Op] {
				target = x.X
			}
		case *syntax.UnaryArithm:
			if x.Op == syntax.Inc || x.Op == syntax.Dec {
				target = x.X
			}
		}
		if w, ok := target.(*syntax.Word); ok {
			sa.checkVarName(w.Lit(), "arithmetic")
		}
		return true
	})
}

// varCommand handles builtins that set variables named by their
// arguments (read, mapfile, printf -v, getopts, unset): each name is
// checked as getting an unknown value. refuse lists options that run code
// (mapfile -C).
func varCommand(spec optSpec, nameOpts []string, skip int, refuseOpts string) handler {
	return func(sa *shellAnalyzer, inv *invocation) []dirState {
		p := spec.parse(inv.args)
		for _, ch := range refuseOpts {
			if p.has(string(ch)) {
				sa.unprove(fmt.Sprintf("%s -%c runs code", inv.name, ch))
			}
		}
		names := p.values(nameOpts...)
		if skip >= 0 {
			names = append(names, p.pos[min(skip, len(p.pos)):]...)
		}
		if inv.name == "getopts" && len(p.pos) > 1 {
			names = append(names, p.pos[1])
		}
		for _, n := range names {
			if !n.known {
				sa.unprove(inv.name + " sets a variable whose name is not literal")
				continue
			}
			name, _, _ := strings.Cut(n.val, "[")
			sa.checkVarName(name, inv.name)
		}
		return inv.stay()
	}
}

var varCommands = map[string]handler{
	"read":      varCommand(optSpec{values: "adinNptu"}, []string{"a"}, 0, ""),
	"mapfile":   varCommand(optSpec{values: "dnOsuCc"}, nil, 0, "C"),
	"readarray": varCommand(optSpec{values: "dnOsuCc"}, nil, 0, "C"),
	"printf":    varCommand(optSpec{values: "v"}, []string{"v"}, -1, ""),
	"getopts":   varCommand(optSpec{}, nil, -1, ""),
	"unset":     varCommand(optSpec{}, nil, 0, ""),
}

var arithmAssignOps = map[syntax.BinAritOperator]bool{syntax.Assgn: true, syntax.AddAssgn: true,
	syntax.SubAssgn: true, syntax.MulAssgn: true, syntax.QuoAssgn: true, syntax.RemAssgn: true,
	syntax.AndAssgn: true, syntax.OrAssgn: true, syntax.XorAssgn: true, syntax.ShlAssgn: true,
	syntax.ShrAssgn: true, syntax.AndBoolAssgn: true, syntax.OrBoolAssgn: true, syntax.XorBoolAssgn: true,
	syntax.PowAssgn: true}
