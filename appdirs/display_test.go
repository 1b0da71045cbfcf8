package appdirs

import "testing"

// TestDisplayMissing pins each platform's rule for whether windows can
// open, and that it says why not.
func TestDisplayMissing(t *testing.T) {
	tests := []struct {
		name       string
		env        map[string]string
		linux, mac string
	}{
		{"none", map[string]string{}, "DISPLAY and WAYLAND_DISPLAY are unset", ""},
		{"x11", map[string]string{"DISPLAY": ":0"}, "", ""},
		{"wayland", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, "", ""},
		{"both", map[string]string{"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, "", ""},
		{"ssh", map[string]string{"SSH_CONNECTION": "10.0.0.2 52000 10.0.0.1 22"},
			"DISPLAY and WAYLAND_DISPLAY are unset", "SSH_CONNECTION is set: an SSH session cannot open windows"},
		{"ssh with a forwarded display", map[string]string{"SSH_TTY": "/dev/ttys003", "DISPLAY": "localhost:10.0"},
			"", "SSH_TTY is set: an SSH session cannot open windows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.env[k] }
			if got := displayMissingOn("linux", getenv); got != tc.linux {
				t.Errorf("Linux: %q, want %q", got, tc.linux)
			}
			if got := displayMissingOn("darwin", getenv); got != tc.mac {
				t.Errorf("macOS: %q, want %q", got, tc.mac)
			}
		})
	}
}
