package launch

import (
	"slices"
	"testing"
)

func TestConfinedEnv(t *testing.T) {
	in := []string{"PATH=/usr/bin", "DISPLAY=:0", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1/bus", "TMUX=/tmp/tmux-1/default,1,0",
		"SSH_AUTH_SOCK=/run/user/1/ssh", "WAYLAND_DISPLAY=wayland-0", "PATHGRANT_TOKEN=t", "TMPDIR=/tmp", "HOME=/h"}
	tests := []struct {
		name     string
		sshAgent bool
		want     []string
	}{
		{"default", false, []string{"PATH=/usr/bin", "HOME=/h", "TMPDIR=/s"}},
		{"ssh agent allowed", true, []string{"PATH=/usr/bin", "SSH_AUTH_SOCK=/run/user/1/ssh", "HOME=/h", "TMPDIR=/s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ConfinedEnv(in, "/s", tt.sshAgent); !slices.Equal(got, tt.want) {
				t.Errorf("ConfinedEnv = %v, want %v", got, tt.want)
			}
		})
	}
}
