package cli

import (
	"os"
	"path/filepath"
	"pathgrant/sandbox"
	"regexp"
	"strings"
	"testing"
)

// TestConfineBinary: exec takes the lean inner step only when it is an
// executable file next to the pathgrant binary, and binds its canonical
// path.
func TestConfineBinary(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(path string, mode os.FileMode) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(dir+"/elsewhere/pathgrant-confine", 0o755)
	tests := []struct {
		name  string
		setup func(bin string)
		want  string // relative to the binary's folder; "" none
	}{
		{"next to pathgrant", func(bin string) { write(bin+"/pathgrant-confine", 0o755) }, "pathgrant-confine"},
		{"missing", func(string) {}, ""},
		{"not executable", func(bin string) { write(bin+"/pathgrant-confine", 0o644) }, ""},
		{"a folder", func(bin string) { os.MkdirAll(bin+"/pathgrant-confine", 0o755) }, ""},
		{"a link: its target", func(bin string) {
			os.Symlink(dir+"/elsewhere/pathgrant-confine", bin+"/pathgrant-confine")
		}, "../elsewhere/pathgrant-confine"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin := filepath.Join(dir, "bin"+string(rune('a'+i)))
			write(bin+"/pathgrant", 0o755)
			tt.setup(bin)
			want := ""
			if tt.want != "" {
				want = filepath.Join(bin, tt.want)
			}
			if got := sandbox.ConfineBinary(bin + "/pathgrant"); got != want {
				t.Errorf("ConfineBinary = %q, want %q", got, want)
			}
		})
	}
}

// TestExecInnerStep: with pathgrant-confine next to pathgrant, the view
// binds it and it runs the inner step; without it, `pathgrant exec
// --inner` does. Either way the command is confined the same.
func TestExecInnerStep(t *testing.T) {
	requireFullConfinement(t)
	bin := buildBinary(t)
	alone := filepath.Join(t.TempDir(), "pathgrant")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	e := newExecEnv(t)
	tests := []struct {
		name, bin string
		confine   bool
	}{
		{"pathgrant-confine", bin, true},
		{"exec --inner", alone, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCmd(t, e.execCmd(tt.bin, "--", "cat", "main.go"))
			if r.code != 0 || !strings.Contains(r.stdout, "package main") {
				t.Errorf("workspace read: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			confine := filepath.Join(filepath.Dir(bin), sandbox.ConfineName)
			r = runCmd(t, e.execCmd(tt.bin, "--", "test", "-x", confine))
			if got := r.code == 0; got != tt.confine {
				t.Errorf("the view binds pathgrant-confine: %v, want %v\n%s", got, tt.confine, r.stderr)
			}
			r = runCmd(t, e.execCmd(tt.bin, "--", "cat", e.secret))
			if r.code == 0 || !regexp.MustCompile(denied).MatchString(r.stderr) || strings.Contains(r.stdout, secretText) {
				t.Errorf("secret read: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
		})
	}
}
