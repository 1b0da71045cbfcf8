package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestTmpBase(t *testing.T) {
	uid := os.Getuid()
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"runtime dir", map[string]string{"XDG_RUNTIME_DIR": "/run/user/7", "TMPDIR": "/x"}, "/run/user/7/pathgrant-exec"},
		{"relative runtime dir ignored", map[string]string{"XDG_RUNTIME_DIR": "run", "TMPDIR": "/x"}, "/x/pathgrant-exec-" + strconv.Itoa(uid)},
		{"default /tmp", map[string]string{}, "/tmp/pathgrant-exec-" + strconv.Itoa(uid)},
		{"relative TMPDIR ignored", map[string]string{"TMPDIR": "t"}, "/tmp/pathgrant-exec-" + strconv.Itoa(uid)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TmpBase(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("TmpBase = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSessionTmpDir(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	base := root + "/base"
	dir, err := SessionTmpDir(base, "s-1")
	if err != nil || dir != base+"/s-1" {
		t.Fatalf("SessionTmpDir = %q, %v", dir, err)
	}
	if again, err := SessionTmpDir(base, "s-1"); err != nil || again != dir {
		t.Errorf("second SessionTmpDir = %q, %v; want the same dir", again, err)
	}
	for _, d := range []string{base, dir} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, mode %v; want 0700", d, err, fi.Mode().Perm())
		}
	}
	if odd, err := SessionTmpDir(base, "../../etc"); err != nil || filepath.Dir(odd) != base {
		t.Errorf("SessionTmpDir(../../etc) = %q, %v; want a hashed dir under %s", odd, err, base)
	}
}

func TestSessionTmpDirRefusesForeignFolders(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mustMkdir(t, root+"/elsewhere")
	if err := symlinkTo(root+"/elsewhere", root+"/link"); err != nil {
		t.Fatal(err)
	}
	mustMkdir(t, root+"/open")
	if err := os.Chmod(root+"/open", 0o755); err != nil {
		t.Fatal(err)
	}
	mustWriteFile(t, root+"/file")
	tests := []struct{ name, base, want string }{
		{"base is a symlink", root + "/link", "not a directory"},
		{"base open to others", root + "/open", "open to other users"},
		{"base is a file", root + "/file", "not a directory"},
		{"no session", root + "/ok", "no session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			session := "s"
			if tt.want == "no session" {
				session = ""
			}
			dir, err := SessionTmpDir(tt.base, session)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("SessionTmpDir = %q, %v; want an error containing %q", dir, err, tt.want)
			}
		})
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

func mustWriteFile(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func symlinkTo(target, link string) error { return os.Symlink(target, link) }

// TestEmptyDirIn: the folder is made empty and unwritable, found again,
// and refused once something is in it or it is writable.
func TestEmptyDirIn(t *testing.T) {
	d := t.TempDir()
	p := EmptyDirIn(d)
	if p == "" || EmptyDirIn(d) != p {
		t.Fatalf("EmptyDirIn = %q", p)
	}
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if EmptyDirIn(d) != "" {
		t.Fatal("a writable folder was taken")
	}
	if err := os.WriteFile(filepath.Join(p, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o555)
	if EmptyDirIn(d) != "" {
		t.Fatal("a folder holding a file was taken")
	}
}
