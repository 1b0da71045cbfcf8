package afterrun

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"pathgrant/internal/buildcheck"
)

// benchTree is a workspace of 100 folders of 100 files with a
// repository at its top and in every tenth folder: 10,000 files.
func benchTree(b *testing.B) string {
	ws := b.TempDir()
	for i := range 100 {
		dir := filepath.Join(ws, fmt.Sprintf("d%03d", i))
		if i%10 == 0 {
			dir = filepath.Join(dir, "repo")
			for _, g := range []string{".git/objects/ab", ".git/refs/heads", ".git/hooks"} {
				os.MkdirAll(filepath.Join(dir, g), 0o755)
			}
			os.WriteFile(filepath.Join(dir, ".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
			os.WriteFile(filepath.Join(dir, ".git/config"), []byte("[core]\n\tbare = false\n"), 0o644)
		}
		os.MkdirAll(dir, 0o755)
		for j := range 100 {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", j)), []byte("x"), 0o644)
		}
	}
	return ws
}

// BenchmarkVerify is Verify's cost against a plain directory walk of the
// same tree (go test ./sandbox/afterrun -run '^$' -bench .).
func BenchmarkVerify(b *testing.B) {
	ws := benchTree(b)
	since := time.Now().Add(time.Hour) // nothing changed: the common case
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			if _, err := verify([]string{ws}, since, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("walkdir", func(b *testing.B) {
		for b.Loop() {
			filepath.WalkDir(ws, func(string, fs.DirEntry, error) error { return nil })
		}
	})
}

// TestLean: the front end links this package, so it links neither
// regexp, net nor os/exec.
func TestLean(t *testing.T) {
	for _, d := range buildcheck.Deps(t, "pathgrant/sandbox/afterrun") {
		if slices.Contains([]string{"net", "net/http", "os/exec", "regexp", "log/slog", "runtime/cgo"}, d) {
			t.Errorf("afterrun links %s", d)
		}
	}
}
