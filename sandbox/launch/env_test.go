package launch

import (
	"slices"
	"testing"
)

func TestConfinedEnv(t *testing.T) {
	in := []string{"PATH=/usr/bin", "DISPLAY=:0", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1/bus", "TMUX=/tmp/tmux-1/default,1,0",
		"SSH_AUTH_SOCK=/run/user/1/ssh", "WAYLAND_DISPLAY=wayland-0", "PATHGRANT_TOKEN=t", "TMPDIR=/tmp", "HOME=/h",
		"HTTPS_PROXY=http://corp:8080", "no_proxy=corp"}
	proxied := []string{"HTTP_PROXY=http://127.0.0.1:41080", "HTTPS_PROXY=http://127.0.0.1:41080", "ALL_PROXY=socks5h://127.0.0.1:41080",
		"NO_PROXY=localhost,127.0.0.1,::1", "http_proxy=http://127.0.0.1:41080", "https_proxy=http://127.0.0.1:41080",
		"all_proxy=socks5h://127.0.0.1:41080", "no_proxy=localhost,127.0.0.1,::1"}
	tests := []struct {
		name     string
		in       []string
		sshAgent bool
		net      Net
		want     []string
	}{
		{"default", in, false, Net{}, []string{"PATH=/usr/bin", "HOME=/h", "HTTPS_PROXY=http://corp:8080", "no_proxy=corp", "TMPDIR=/s"}},
		{"ssh agent allowed", in, true, Net{}, []string{"PATH=/usr/bin", "SSH_AUTH_SOCK=/run/user/1/ssh", "HOME=/h",
			"HTTPS_PROXY=http://corp:8080", "no_proxy=corp", "TMPDIR=/s"}},
		{"a namespace of its own: the caller's proxies replaced", in, false, Net{Port: ProxyPort},
			slices.Concat([]string{"PATH=/usr/bin", "HOME=/h", "TMPDIR=/s"}, proxied)},
		{"git over ssh through the connect helper", []string{"HOME=/h"}, false, Net{Port: ProxyPort, Connect: ConnectHelper([]string{"/usr/lib/pathgrant/pathgrant-confine"})},
			slices.Concat([]string{"HOME=/h", "TMPDIR=/s"}, proxied,
				[]string{"GIT_SSH_COMMAND=ssh -o 'ProxyCommand=/usr/lib/pathgrant/pathgrant-confine connect %h %p'"})},
		{"the caller's own GIT_SSH_COMMAND kept", []string{"GIT_SSH_COMMAND=ssh -i k"}, false, Net{Port: ProxyPort, Connect: []string{"/c", "connect"}},
			slices.Concat([]string{"GIT_SSH_COMMAND=ssh -i k", "TMPDIR=/s"}, proxied)},
	}
	tests = append(tests, struct {
		name     string
		in       []string
		sshAgent bool
		net      Net
		want     []string
	}{"pathgrant's own inner step", []string{"HOME=/h"}, false, Net{Port: ProxyPort, Connect: ConnectHelper([]string{"/opt/my tools/pathgrant", "exec", "--inner"})},
		slices.Concat([]string{"HOME=/h", "TMPDIR=/s"}, proxied,
			[]string{`GIT_SSH_COMMAND=ssh -o 'ProxyCommand='\''/opt/my tools/pathgrant'\'' exec --connect %h %p'`})})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ConfinedEnv(tt.in, "/s", tt.sshAgent, tt.net); !slices.Equal(got, tt.want) {
				t.Errorf("ConfinedEnv =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
