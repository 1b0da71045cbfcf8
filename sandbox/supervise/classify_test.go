package supervise

import (
	"testing"

	"pathgrant/wire"
)

func TestReadOnly(t *testing.T) {
	tests := []struct {
		name  string
		flags uint64
		want  bool
	}{
		{"O_RDONLY", 0, true},
		{"O_RDONLY|O_CLOEXEC|O_NONBLOCK", oCloexec | oNonblock, true},
		{"O_DIRECTORY", oDirectory, true},
		{"O_NOFOLLOW", oNofollow, true},
		{"O_WRONLY", 1, false},
		{"O_RDWR", 2, false},
		{"O_CREAT", oCreat, false},
		{"O_TRUNC", oTrunc, false},
		{"O_PATH", oPath, false},
		{"O_PATH|O_DIRECTORY", oPath | oDirectory, false},
		{"O_TMPFILE", oTmpfile | oDirectory, false},
		{"O_ACCMODE 3", 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readOnly(tt.flags); got != tt.want {
				t.Errorf("readOnly(%#o) = %v, want %v", tt.flags, got, tt.want)
			}
		})
	}
}

func TestJoin(t *testing.T) {
	tests := []struct {
		name, base, path, want string
		ok                     bool
	}{
		{"absolute", "", "/home/u/Downloads/r.csv", "/home/u/Downloads/r.csv", true},
		{"absolute ignores base", "/w", "/home/u/Downloads/r.csv", "/home/u/Downloads/r.csv", true},
		{"relative", "/home/u/Downloads", "r.csv", "/home/u/Downloads/r.csv", true},
		{"dot and slashes", "/home/u", "./Downloads//r.csv", "/home/u/Downloads/r.csv", true},
		{"dot-dot refused", "/home/u/Downloads", "../.ssh/id_rsa", "", false},
		{"dot-dot inside refused", "", "/home/u/Downloads/../.ssh/id_rsa", "", false},
		{"dot-dot at the end refused", "", "/home/u/Downloads/x/..", "", false},
		{"a base with dot-dot refused", "/00/../0", "0", "", false},
		{"dots in a name kept", "", "/home/u/Downloads/..r.csv", "/home/u/Downloads/..r.csv", true},
		{"relative without a base", "", "r.csv", "", false},
		{"relative to a relative base", "Downloads", "r.csv", "", false},
		{"empty", "/w", "", "", false},
		{"NUL", "", "/a\x00b", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := join(tt.base, tt.path)
			if got != tt.want || ok != tt.ok {
				t.Errorf("join(%q, %q) = %q, %v; want %q, %v", tt.base, tt.path, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestUnder(t *testing.T) {
	roots := []string{"/home/u/Downloads", "/media/"}
	tests := []struct{ path, want string }{
		{"/home/u/Downloads", "/home/u/Downloads"},
		{"/home/u/Downloads/r.csv", "/home/u/Downloads"},
		{"/home/u/Downloads2/r.csv", ""},
		{"/home/u/Download", ""},
		{"/home/u", ""},
		{"/media/x", "/media/"},
		{"/mediax", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := under(roots, tt.path); got != tt.want {
				t.Errorf("under(%q) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}

func TestCandidate(t *testing.T) {
	roots := []string{"/home/u/Downloads"}
	tests := []struct {
		name, base, path string
		want             bool
	}{
		{"absolute inside", "", "/home/u/Downloads/r.csv", true},
		{"the root itself", "", "/home/u/Downloads", true},
		{"the root with a slash", "", "/home/u/Downloads/", true},
		{"absolute elsewhere", "", "/home/u/work/main.go", false},
		{"a longer name", "", "/home/u/Downloads2/x", false},
		{"relative from the root", "/home/u/Downloads", "r.csv", true},
		{"relative from above", "/home/u", "Downloads/r.csv", true},
		{"relative with a dot", "/home/u", "./Downloads/r.csv", true},
		{"relative elsewhere", "/home/u/work", "main.go", false},
		{"doubled slash", "", "/home//u/Downloads/r.csv", true},
		{"from the file system root", "/", "home/u/Downloads/r.csv", true},
		{"short", "", "/home", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := candidate(roots, []byte(tt.base), []byte(tt.path)); got != tt.want {
				t.Errorf("candidate(%q, %q) = %v, want %v", tt.base, tt.path, got, tt.want)
			}
		})
	}
}

// FuzzCandidate: the byte-wise pre-test never says no for a path join and
// under put under a root: an open it lets pass without a look would be
// one the person was never asked about.
func FuzzCandidate(f *testing.F) {
	f.Add("/home/u/Downloads", "/home/u", "Downloads/r.csv")
	f.Add("/home/u/Downloads", "", "/home//u/./Downloads")
	f.Add("/d/", "/", "d//x")
	f.Fuzz(func(t *testing.T, root, base, path string) {
		if root == "" || root[0] != '/' {
			return
		}
		roots := []string{root}
		abs, ok := join(base, path)
		if ok && under(roots, abs) != "" && !candidate(roots, []byte(base), []byte(path)) {
			t.Errorf("candidate(%q, %q, %q) = false, but join gives %q under the root", root, base, path, abs)
		}
	})
}

func TestCovered(t *testing.T) {
	granted := []wire.Scope{
		{Op: wire.OpRead, Path: "/d/report.csv", Kind: wire.KindFile},
		{Op: wire.OpRead, Path: "/d/photos", Kind: wire.KindFolder},
		{Op: wire.OpWrite, Path: "/d/notes", Kind: wire.KindFolder},
	}
	tests := []struct {
		path string
		want bool
	}{
		{"/d/report.csv", true},
		{"/d/report.csv2", false},
		{"/d/photos", true},
		{"/d/photos/a.jpg", true},
		{"/d/photos2/a.jpg", false},
		{"/d/notes/a.txt", false},
		{"/d/other.csv", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := Covered(granted, tt.path); got != tt.want {
				t.Errorf("Covered(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}
