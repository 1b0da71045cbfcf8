package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"pathgrant/devicepolicy"
	"runtime"
	"slices"
)

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
func HiddenPaths(pl Places) []string { return hiddenPathsOn(runtime.GOOS, pl) }

// hiddenPathsOn is HiddenPaths on the system goos.
func hiddenPathsOn(goos string, pl Places) []string {
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
	if goos == "darwin" {
		// appdirs' state and config folder there: the store, the launchd
		// daemon's headless log, the device policy.
		out = append(out, filepath.Join(pl.Home, "Library/Application Support/pathgrant"))
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

// Environ is one environment whose places a view hides: its variables
// and its home folder.
type Environ struct {
	Getenv func(string) string
	Home   string
}

// WithHidden is cfg hiding the places each environment names (HiddenPaths,
// the daemon's socket folder among them), and showing the ssh agent's
// socket the first one names when the device policy allows the agent.
func WithHidden(cfg ViewConfig, socket string, sshAgent bool, envs ...Environ) ViewConfig {
	for _, e := range envs {
		cfg.Hidden = append(cfg.Hidden, HiddenPaths(Places{Getenv: e.Getenv, Home: e.Home, UID: os.Getuid(), Socket: socket,
			Forbidden: devicepolicy.Forbidden(e.Home), SSHAgent: sshAgent})...)
	}
	slices.Sort(cfg.Hidden)
	cfg.Hidden = slices.Compact(cfg.Hidden)
	if sock := envs[0].Getenv("SSH_AUTH_SOCK"); sshAgent && filepath.IsAbs(sock) {
		cfg.SSHAgentSocket = sock
	}
	return cfg
}
