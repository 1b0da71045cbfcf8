package prompt

import (
	"strings"
	"testing"

	"pathgrant/guard"
	"pathgrant/wire"
)

// TestScopeOptions: the scopes offered before allowing are the file, its
// folder and the folders above it up to the home folder's first-level
// folder, never wider; a folder asked for is one scope; a path outside
// the home folder goes no higher than its own folder.
func TestScopeOptions(t *testing.T) {
	const home = "/home/u"
	file := func(p string) wire.Request {
		return wire.Request{Op: guard.OpRead, Path: p, Suggested: guard.Scope{Kind: guard.KindFile}}
	}
	folder := func(p string) wire.Request {
		return wire.Request{Op: guard.OpRead, Path: p, Suggested: guard.Scope{Kind: guard.KindFolder}}
	}
	tests := []struct {
		name string
		r    wire.Request
		want []string // label=path ("" for the request's own)
	}{
		{"a file in Downloads", file("/home/u/Downloads/a.csv"), []string{"This file=", "Its folder="}},
		{"a file deeper", file("/home/u/Documents/taxes/2026/a.pdf"),
			[]string{"This file=", "Its folder=", "~/Documents/taxes=/home/u/Documents/taxes", "~/Documents=/home/u/Documents"}},
		{"a folder asked for", folder("/home/u/Downloads"), []string{"This folder="}},
		{"a folder below", folder("/home/u/Pictures/2026"), []string{"This folder=", "~/Pictures=/home/u/Pictures"}},
		{"outside home", file("/srv/data/a.csv"), []string{"This file=", "Its folder="}},
		{"home's own file", file("/home/u/notes.txt"), []string{"This file=", "Its folder="}},
		{"a name that extends home", file("/home/user2/Downloads/a.csv"), []string{"This file=", "Its folder="}},
		{"very deep: bounded", file("/home/u/Documents/a/b/c/d/e/f/g.txt"), []string{"This file=", "Its folder=",
			"~/Documents/a/b/c/d/e=/home/u/Documents/a/b/c/d/e", "~/Documents/a/b/c/d=/home/u/Documents/a/b/c/d",
			"~/Documents/a/b/c=/home/u/Documents/a/b/c", "~/Documents/a/b=/home/u/Documents/a/b"}},
		{"a connection", wire.Request{Op: guard.OpConnect, Path: "example.org:443"}, []string{"This file="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := ScopeOptions(tt.r, home)
			var got []string
			for _, o := range opts {
				got = append(got, o.Label+"="+o.Path)
				if o.Path != "" && (o.Kind != guard.KindFolder || !strings.HasPrefix(tt.r.Path, o.Path+"/")) {
					t.Errorf("scope %+v is not a folder above %s", o, tt.r.Path)
				}
				if o.Path != "" && !strings.HasPrefix(o.Path, home+"/") {
					t.Errorf("scope %+v is wider than the home folder's first level", o)
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("scopes %q, want %q", got, tt.want)
			}
		})
	}
}
