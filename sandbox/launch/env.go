package launch

import (
	"fmt"
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

// proxyEnv are the variables that send tools through a proxy: in a
// network namespace of its own a command's are pathgrant's (ProxyEnv),
// whatever the caller's said.
var proxyEnv = []string{
	"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy",
}

// ProxyPort is where a command in a network namespace of its own finds
// pathgrant's proxy, on its own loopback: a port no common tool or test
// server takes by default, free in a namespace nothing else runs in.
const ProxyPort = 41080

// Net is how a confined command reaches the network: Port is the proxy's
// port on its loopback (0: it shares the machine's network, nothing is
// set), Connect the command line of the connect helper git's ssh goes
// through (ProxyCommand, HOST and PORT appended: ConnectHelper).
type Net struct {
	Port    int
	Connect []string
}

// ConnectHelper is the connect helper's command line for the inner step
// inner (wire.Prepared.Inner: the binary the view shows): `pathgrant-confine
// connect`, or `pathgrant exec --connect` where the inner step is
// `pathgrant exec --inner`.
func ConnectHelper(inner []string) []string {
	switch {
	case len(inner) == 0:
		return nil
	case len(inner) == 1:
		return []string{inner[0], "connect"}
	}
	return []string{inner[0], "exec", "--connect"}
}

// ConfinedEnv is environ for a confined command: TMPDIR set to the
// session's tmp dir, the desktop, multiplexer, ssh agent (unless
// sshAgent) and pathgrant variables removed, and in a network namespace
// of its own the proxy variables set (ProxyEnv).
func ConfinedEnv(environ []string, tmp string, sshAgent bool, net Net) []string {
	drop := slices.Clone(desktopEnv)
	if sshAgent {
		drop = slices.DeleteFunc(drop, func(k string) bool { return k == "SSH_AUTH_SOCK" })
	}
	drop = append(drop, "TMPDIR")
	if net.Port != 0 {
		drop = append(drop, proxyEnv...)
	}
	env := slices.DeleteFunc(slices.Clone(environ), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(drop, k)
	})
	return append(append(env, "TMPDIR="+tmp), ProxyEnv(environ, net)...)
}

// ProxyEnv are the variables that send a command's tools through
// pathgrant's proxy on its own loopback: HTTP CONNECT for https (and
// plain http forwarded), SOCKS5 with the proxy resolving names
// (socks5h: the namespace has no resolver) for what takes ALL_PROXY,
// its own loopback direct, and git over ssh through the connect helper
// unless the caller's environment already says how git runs ssh.
func ProxyEnv(environ []string, net Net) []string {
	if net.Port == 0 {
		return nil
	}
	http := fmt.Sprintf("http://127.0.0.1:%d", net.Port)
	socks := fmt.Sprintf("socks5h://127.0.0.1:%d", net.Port)
	const direct = "localhost,127.0.0.1,::1"
	env := []string{
		"HTTP_PROXY=" + http, "HTTPS_PROXY=" + http, "ALL_PROXY=" + socks, "NO_PROXY=" + direct,
		"http_proxy=" + http, "https_proxy=" + http, "all_proxy=" + socks, "no_proxy=" + direct,
	}
	set := slices.ContainsFunc(environ, func(kv string) bool {
		return strings.HasPrefix(kv, "GIT_SSH_COMMAND=") || strings.HasPrefix(kv, "GIT_SSH=")
	})
	if len(net.Connect) > 0 && !set {
		words := make([]string, len(net.Connect))
		for i, w := range net.Connect {
			words[i] = Quote(w)
		}
		env = append(env, "GIT_SSH_COMMAND=ssh -o "+Quote("ProxyCommand="+strings.Join(words, " ")+" %h %p"))
	}
	return env
}
