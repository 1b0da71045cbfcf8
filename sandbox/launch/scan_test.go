package launch

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRefusedPaths: the paths the common refusal formats name.
func TestRefusedPaths(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"cat: /x/y: Permission denied", []string{"/x/y"}},
		{"cat: /x/y: No such file or directory", []string{"/x/y"}},
		{"bash: /x: Permission denied", []string{"/x"}},
		{"bash: line 1: /x/key.txt: No such file or directory", []string{"/x/key.txt"}},
		{"sh: 1: cannot open /x: No such file", []string{"/x"}},
		{"sh: 1: cannot create /w/.claude/settings.json: Read-only file system", []string{"/w/.claude/settings.json"}},
		{"touch: cannot touch '/a b/c': Permission denied", []string{"/a b/c"}},
		{"mkdir: cannot create directory ‘/w/.git’: Read-only file system", []string{"/w/.git"}},
		{"PermissionError: [Errno 13] Permission denied: '/x/key.txt'", []string{"/x/key.txt"}},
		{"FileNotFoundError: [Errno 2] No such file or directory: '/x/../y'", []string{"/y"}},
		{"Error: EACCES: permission denied, open '/x'", []string{"/x"}},
		{`Error: EACCES: permission denied, open 'rel' then "/q"`, []string{"/q"}},
		{"OSError: Permission denied: ‘/curly’", []string{"/curly"}},
		{"OSError: Permission denied: '/unterminated", nil},
		{"İstanbul: /x: Permission denied", []string{"/x"}}, // İ lowers to more bytes than it has
		{"\x80 cat: /x: Permission denied", []string{"/x"}}, // invalid UTF-8
		{"rm: cannot remove '/x': Operation not permitted", []string{"/x"}},
		{"cat: relative.txt: No such file or directory", nil},
		{"error: something else entirely", nil},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			if got := refusedPaths(tt.line); !slices.Equal(got, tt.want) {
				t.Errorf("refusedPaths(%q) = %q; want %q", tt.line, got, tt.want)
			}
		})
	}
}

// TestRefusalScanner: lines split across writes are joined, unrelated and
// overlong lines are dropped, paths are listed once.
func TestRefusalScanner(t *testing.T) {
	s := &Scanner{}
	for _, chunk := range []string{"cat: /a: Perm", "ission denied\nok\n", strings.Repeat("x", MaxLineBytes) + " /long: Permission denied\n",
		"cat: /a: Permission denied\n", "python: can't open file '/b': [Errno 2] No such file or directory"} {
		s.Write([]byte(chunk))
	}
	if got, want := s.Paths(), []string{"/a"}; !slices.Equal(got, want) {
		t.Errorf("paths %q; want %q", got, want)
	}
}

// TestReads: what a confined command may read, for choosing which refused

// FuzzRefusedPaths: the daemon reads a confined command's stderr lines,
// which the command writes as it likes: whatever they hold, every path
// taken from them is absolute and clean, and none is invented from text
// the line does not contain.
func FuzzRefusedPaths(f *testing.F) {
	f.Fuzz(func(t *testing.T, line string) {
		for _, p := range RefusedPaths([]string{line}) {
			if !filepath.IsAbs(p) || filepath.Clean(p) != p {
				t.Fatalf("RefusedPaths(%q) gave %q: not absolute and clean", line, p)
			}
			if base := filepath.Base(p); base != "/" && !strings.Contains(line, base) {
				t.Fatalf("RefusedPaths(%q) gave %q, whose last part the line does not hold", line, p)
			}
		}
	})
}

// TestScannerOffline: what tools say when they find no route or no name
// server marks the command as offline; a refusal of a path, or an
// ordinary line, does not.
func TestScannerOffline(t *testing.T) {
	tests := []struct {
		name, out string
		want      bool
	}{
		{"curl, no name", "curl: (6) Could not resolve host: example.com\n", true},
		{"curl, no route", "curl: (7) Failed to connect to 93.184.215.14 port 443 after 0 ms: Network is unreachable\n", true},
		{"curl 8, no route", "curl: (7) Failed to connect to 192.0.2.2 port 46149 after 0 ms: Couldn't connect to server\n", true},
		{"git", "fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com\n", true},
		{"wget", "wget: unable to resolve host address 'example.com'\n", true},
		{"python", "socket.gaierror: [Errno -3] Temporary failure in name resolution\n", true},
		{"node", "Error: getaddrinfo EAI_AGAIN registry.npmjs.org\n", true},
		{"go", "dial tcp: lookup proxy.golang.org on 127.0.0.53:53: dial udp 127.0.0.53:53: connect: no such host\n", true},
		{"the last line, unfinished", "ssh: connect to host example.com port 22: Network is unreachable", true},
		{"a path refused", "cat: /home/u/.ssh/id_rsa: Permission denied\n", false},
		{"nothing of the network", "make: *** [all] Error 1\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Scanner
			s.Write([]byte(tt.out))
			if got := s.Offline(); got != tt.want {
				t.Errorf("Offline after %q = %v, want %v", tt.out, got, tt.want)
			}
		})
	}
}
