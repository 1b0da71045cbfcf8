package applink

import (
	"slices"
	"testing"
)

func TestAppEnv(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"display and locale kept", []string{"DISPLAY=:0", "LANG=en_GB.UTF-8", "LC_TIME=de_DE"},
			[]string{"DISPLAY=:0", "LANG=en_GB.UTF-8", "LC_TIME=de_DE"}},
		{"a C.UTF-8 locale read by Fyne as English", []string{"DISPLAY=:0", "LANG=C.UTF-8"},
			[]string{"DISPLAY=:0", "LANG=C.UTF-8", "LANGUAGE=en"}},
		{"loaders dropped", []string{"LD_PRELOAD=/x.so", "LD_LIBRARY_PATH=/x", "GTK_MODULES=x", "DISPLAY=:0"},
			[]string{"DISPLAY=:0"}},
		{"a later entry wins", []string{"DISPLAY=:0", "DISPLAY=:1"}, []string{"DISPLAY=:1"}},
		{"PATH and the socket are pathgrant's", []string{"PATH=/evil", "PATHGRANT_SOCKET=/evil.sock"}, nil},
		{"no value is no entry", []string{"DISPLAY"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := appEnv(tc.in, "/run/u/pathgrant.sock")
			want := append(slices.Clone(tc.want), "PATH="+appPath, "PATHGRANT_SOCKET=/run/u/pathgrant.sock")
			if !slices.Equal(got, want) {
				t.Errorf("appEnv(%v) = %v, want %v", tc.in, got, want)
			}
		})
	}
}

func TestDisplayVars(t *testing.T) {
	out := "HOME=/home/u\nDISPLAY=:0\nXAUTHORITY=/run/user/1000/xauth\nLD_PRELOAD=/x.so\n" +
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus\nWAYLAND_DISPLAY=$'a\\nb'\n"
	want := []string{"DISPLAY=:0", "XAUTHORITY=/run/user/1000/xauth", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus"}
	if got := displayVars(out); !slices.Equal(got, want) {
		t.Errorf("displayVars = %v, want %v", got, want)
	}
}

func TestWithDisplay(t *testing.T) {
	env := []string{"HOME=/h", "DISPLAY=:66", "XAUTHORITY=/tmp/evil", "LANG=C"}
	got := withDisplay(env, displayOf([]string{"DISPLAY=:0", "HOME=/other"}))
	want := []string{"HOME=/h", "LANG=C", "DISPLAY=:0"}
	if !slices.Equal(got, want) {
		t.Errorf("withDisplay = %v, want %v", got, want)
	}
}
