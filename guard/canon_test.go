package guard

import (
	"errors"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	f := newFixture(t)
	c := Canonicalizer{Home: f.H}
	tests := []struct {
		name, path, cwd string
		noFollow        bool
		want            string
		wantErr         error
	}{
		{name: "absolute", path: "{W}/main.go", want: "{W}/main.go"},
		{name: "relative to cwd", path: "src/a.txt", cwd: "{W}", want: "{W}/src/a.txt"},
		{name: "tilde", path: "~/Downloads/report.csv", want: "{D}/report.csv"},
		{name: "bare tilde", path: "~", want: "{H}"},
		{name: "dot and double slash", path: "{W}/./src//a.txt", want: "{W}/src/a.txt"},
		{name: "parent traversal", path: "{W}/../Downloads/report.csv", want: "{D}/report.csv"},
		{name: "parent above root", path: "/../../{W}/main.go", want: "{W}/main.go"},
		{name: "symlink leading out", path: "{W}/link_out/key", want: "{T}/secret/key"},
		{name: "dotdot after symlink is the target's parent", path: "{W}/link_sub/../key", want: "{T}/secret/key"},
		{name: "symlink in approved folder", path: "{D}/data/escape", want: "{T}/secret/key"},
		{name: "last link not followed", path: "{D}/data/escape", noFollow: true, want: "{D}/data/escape"},
		{name: "missing file resolves through parent", path: "{W}/link_out/new.txt", want: "{T}/secret/new.txt"},
		{name: "missing dirs", path: "{W}/a/b/c", want: "{W}/a/b/c"},
		{name: "missing then dotdot back through a link", path: "{W}/nope/../link_out/key", want: "{T}/secret/key"},
		{name: "missing then climbing out", path: "{W}/nope/../../Downloads/x", want: "{D}/x"},
		{name: "file used as dir", path: "{W}/main.go/x", want: "{W}/main.go/x"},
		{name: "empty", path: "", wantErr: ErrBadPath},
		{name: "nul byte", path: "{W}/a\x00b", wantErr: ErrBadPath},
		{name: "relative without cwd", path: "a.txt", wantErr: ErrBadPath},
		{name: "symlink loop", path: "{W}/loop/x", wantErr: ErrBadPath},
		{name: "longer than PATH_MAX", path: "{W}/" + strings.Repeat("a/", pathMax/2), wantErr: ErrBadPath},
		{name: "relative, too long once joined", path: strings.Repeat("b", 200) + strings.Repeat("/c", pathMax/2-100), cwd: "{W}", wantErr: ErrBadPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Canonical(f.path(tt.path), f.path(tt.cwd), !tt.noFollow)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Canonical(%q) error = %v, want %v", tt.path, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != f.path(tt.want) {
				t.Fatalf("Canonical(%q) = %q, %v; want %q", tt.path, got, err, f.path(tt.want))
			}
		})
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		root, p string
		want    bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/c", true},
		{"/a/b", "/a/bc", false},
		{"/a/b", "/a", false},
		{"/", "/x", true},
		{"/a/b", "/a/b/../c", true}, // Within is lexical: callers pass canonical paths
	}
	for _, tt := range tests {
		if got := Within(tt.root, tt.p); got != tt.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tt.root, tt.p, got, tt.want)
		}
	}
}
