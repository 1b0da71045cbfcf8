package launch

import (
	"slices"
	"strings"
)

// desktopEnv are the variables that point a program at the user's
// desktop session, terminal multiplexer, ssh agent or pathgrant itself:
// none of it is reachable from the view, and a confined command has no
// business trying.
var desktopEnv = []string{
	"DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "XAUTHORITY",
	"TMUX", "TMUX_PANE", "STY", "SSH_AUTH_SOCK", "SSH_AGENT_PID", "XDG_RUNTIME_DIR", "PATHGRANT_TOKEN", "PATHGRANT_CAP",
}

// ConfinedEnv is environ for a confined command: TMPDIR set to the
// session's tmp dir, and the desktop, multiplexer, ssh agent (unless
// sshAgent) and pathgrant variables removed.
func ConfinedEnv(environ []string, tmp string, sshAgent bool) []string {
	drop := slices.Clone(desktopEnv)
	if sshAgent {
		drop = slices.DeleteFunc(drop, func(k string) bool { return k == "SSH_AUTH_SOCK" })
	}
	drop = append(drop, "TMPDIR")
	env := slices.DeleteFunc(slices.Clone(environ), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(drop, k)
	})
	return append(env, "TMPDIR="+tmp)
}
