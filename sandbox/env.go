package sandbox

import (
	"fmt"
	"path/filepath"
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

// Places says where the things a view hides live on this machine.
type Places struct {
	Getenv func(string) string
	Home   string
	UID    int
	// Socket is the daemon's socket.
	Socket string
	// Forbidden are the credential, browser and password folders
	// (devicepolicy.Forbidden).
	Forbidden []string
	// SSHAgent leaves the ssh agent's socket visible.
	SSHAgent bool
}

// HiddenPaths are the places no confined command may see: pathgrant's
// socket folder (its runtime folder), state and config; the user's runtime
// folder (D-Bus session bus, Wayland, PulseAudio), X11 and tmux sockets,
// screen's folder, the ssh agent's socket folder, and the credential
// folders. Most are not in a view at all; HiddenPaths are covered where a
// bound tree would show them.
func HiddenPaths(pl Places) []string {
	env := func(k, def string) string {
		if v := pl.Getenv(k); filepath.IsAbs(v) {
			return v
		}
		return def
	}
	tmp := env("TMPDIR", "/tmp")
	out := []string{
		filepath.Dir(pl.Socket),
		filepath.Join(env("XDG_STATE_HOME", filepath.Join(pl.Home, ".local/state")), "pathgrant"),
		filepath.Join(env("XDG_CONFIG_HOME", filepath.Join(pl.Home, ".config")), "pathgrant"),
		filepath.Join(pl.Home, ".config/pathgrant"),
		env("XDG_RUNTIME_DIR", fmt.Sprintf("/run/user/%d", pl.UID)),
		"/tmp/.X11-unix", "/tmp/.ICE-unix", fmt.Sprintf("/tmp/tmux-%d", pl.UID),
		filepath.Join(tmp, fmt.Sprintf("tmux-%d", pl.UID)), "/run/screen", filepath.Join(pl.Home, ".screen"),
		filepath.Join(env("TMUX_TMPDIR", "/tmp"), fmt.Sprintf("tmux-%d", pl.UID)),
	}
	if sock := pl.Getenv("SSH_AUTH_SOCK"); filepath.IsAbs(sock) && !pl.SSHAgent {
		out = append(out, sock)
	}
	out = append(out, pl.Forbidden...)
	for i, p := range out {
		out[i] = filepath.Clean(p)
	}
	slices.Sort(out)
	return slices.DeleteFunc(slices.Compact(out), func(p string) bool { return p == "/" || p == "/tmp" || p == pl.Home })
}
