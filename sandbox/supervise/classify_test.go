package supervise

import "testing"

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
			if got := ReadOnly(tt.flags); got != tt.want {
				t.Errorf("ReadOnly(%#o) = %v, want %v", tt.flags, got, tt.want)
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
		{"dots in a name kept", "", "/home/u/Downloads/..r.csv", "/home/u/Downloads/..r.csv", true},
		{"relative without a base", "", "r.csv", "", false},
		{"relative to a relative base", "Downloads", "r.csv", "", false},
		{"empty", "/w", "", "", false},
		{"NUL", "", "/a\x00b", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Join(tt.base, tt.path)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Join(%q, %q) = %q, %v; want %q, %v", tt.base, tt.path, got, ok, tt.want, tt.ok)
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
			if got := Under(roots, tt.path); got != tt.want {
				t.Errorf("Under(%q) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}
