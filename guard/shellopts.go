package guard

import (
	"strings"
)

// safeSetOptions are `set -o` names that change nothing the guard relies
// on: how words expand, which commands run, or which files they reach.
// keyword (-k), posix and privileged are left out, so they are refused.
var safeSetOptions = map[string]bool{
	"errexit": true, "nounset": true, "pipefail": true, "xtrace": true, "verbose": true,
	"noclobber": true, "errtrace": true, "functrace": true, "hashall": true, "notify": true,
	"monitor": true, "braceexpand": true, "histexpand": true, "history": true, "emacs": true,
	"vi": true, "ignoreeof": true, "noexec": true, "allexport": true, "noglob": true,
	"physical": true, "onecmd": true,
}

// safeSetFlags are the single-letter forms of safeSetOptions.
const safeSetFlags = "euxvCEThbmBHnafPt"

// safeShoptOn are shopt options that may be turned on: none changes which
// files a word names or which text runs (dotglob, globstar, nullglob,
// lastpipe, expand_aliases and the like do, and are refused).
var safeShoptOn = map[string]bool{
	"checkwinsize": true, "histappend": true, "cmdhist": true, "lithist": true, "progcomp": true,
	"hostcomplete": true, "inherit_errexit": true, "shift_verbose": true, "checkjobs": true,
	"huponexit": true, "failglob": true, "nocasematch": true, "extglob": true, "globasciiranges": true,
	"xpg_echo": true, "assoc_expand_once": true, "localvar_inherit": true, "checkhash": true,
	"complete_fullquote": true, "force_fignore": true, "interactive_comments": true, "globskipdots": true,
	"patsub_replacement": true, "extquote": true, "promptvars": true, "sourcepath": true,
}

// safeShoptOff are shopt options that may be turned off.
var safeShoptOff = map[string]bool{
	"expand_aliases": true, "dotglob": true, "nullglob": true, "failglob": true, "globstar": true,
	"nocaseglob": true, "nocasematch": true, "lastpipe": true, "extglob": true, "checkwinsize": true,
	"histappend": true, "sourcepath": true, "xpg_echo": true, "inherit_errexit": true,
}

// setCommand: `set` flags and -o names must be safe (safeSetOptions);
// other operands only set the positional parameters.
func setCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	args := inv.args
	for len(args) > 0 {
		a := args[0]
		args = args[1:]
		switch {
		case !a.known:
			sa.unprove("set given a non-literal option " + a.val)
			return inv.stay()
		case a.val == "--" || a.val == "-" || (a.val[0] != '-' && a.val[0] != '+'):
			return inv.stay()
		}
		for _, ch := range a.val[1:] {
			switch {
			case ch == 'o' && len(args) == 0:
			case ch == 'o':
				if !args[0].known || !safeSetOptions[args[0].val] {
					sa.unprove("set -o " + args[0].val + " changes how the shell reads the command")
				}
				args = args[1:]
			case !strings.ContainsRune(safeSetFlags, ch):
				sa.unprove("set " + a.val + " changes how the shell reads the command")
			}
		}
	}
	return inv.stay()
}

// shoptCommand: -s and -u may only touch the safe options; -o names are
// checked as set -o; -p and -q only print.
func shoptCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	mode := ""
	for _, a := range inv.args {
		switch {
		case !a.known:
			sa.unprove("shopt given a non-literal argument " + a.val)
		case strings.HasPrefix(a.val, "-"):
			for _, ch := range a.val[1:] {
				if ch == 's' || ch == 'u' || ch == 'o' {
					mode += string(ch)
				}
			}
		case strings.Contains(mode, "o") && (strings.Contains(mode, "s") || strings.Contains(mode, "u")):
			if !safeSetOptions[a.val] {
				sa.unprove("shopt -o " + a.val + " changes how the shell reads the command")
			}
		case strings.Contains(mode, "s") && !safeShoptOn[a.val], strings.Contains(mode, "u") && !safeShoptOff[a.val]:
			sa.unprove("shopt " + a.val + " changes how the shell expands or runs the command")
		}
	}
	return inv.stay()
}

// hashCommand: hash -p PATH NAME makes NAME run PATH.
func hashCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	for _, a := range inv.args {
		if !a.known || (strings.HasPrefix(a.val, "-") && strings.Contains(a.val, "p")) {
			sa.unprove("hash -p makes a command name run another program")
		}
	}
	return inv.stay()
}

// aliasCommand: printing aliases is harmless; defining one may replace a
// later command with text the guard never sees (alias expansion can be on
// through shopt or an inherited BASHOPTS).
func aliasCommand(sa *shellAnalyzer, inv *invocation) []dirState {
	for _, a := range inv.args {
		if !a.known || strings.Contains(a.val, "=") {
			sa.unprove("alias definitions may replace later commands")
		}
	}
	return inv.stay()
}
