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

// benchTree is a workspace of scale*100 folders of 100 files with a
// repository in every tenth folder: scale*10,000 files.
func benchTree(b *testing.B, scale int) string {
	ws := b.TempDir()
	for i := range 100 * scale {
		dir := filepath.Join(ws, fmt.Sprintf("d%05d", i))
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

// BenchmarkVerify is Check's cost against a plain directory walk of the
// same tree, with nothing changed (the common case), each timed in turn
// in the same loop: on 10,000 files and, with PATHGRANT_BENCH_MILLION=1
// (it takes minutes to make; TMPDIR=/dev/shm helps), on 1,000,000.
// scripts/perf prints it: go test ./sandbox/afterrun -run '^$' -bench Verify.
func BenchmarkVerify(b *testing.B) {
	sizes := []int{1}
	if os.Getenv("PATHGRANT_BENCH_MILLION") == "1" {
		sizes = append(sizes, 100)
	}
	for _, n := range sizes {
		ws := benchTree(b, n)
		since := time.Now().Add(time.Hour)
		b.Run(fmt.Sprintf("files=%d", n*10_000), func(b *testing.B) {
			var check, walk time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := verify([]string{ws}, since, nil); err != nil {
					b.Fatal(err)
				}
				check += time.Since(start)
				start = time.Now()
				filepath.WalkDir(ws, func(string, fs.DirEntry, error) error { return nil })
				walk += time.Since(start)
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(b.N) / 1e6 }
			b.ReportMetric(ms(check), "check-ms")
			b.ReportMetric(ms(walk), "walk-ms")
			b.ReportMetric(float64(check)/float64(walk), "ratio")
		})
	}
}

// TestLean: the package stays a leaf of the standard library, x/sys and
// guard/protected: no regexp, net or os/exec.
func TestLean(t *testing.T) {
	for _, d := range buildcheck.Deps(t, "pathgrant/sandbox/afterrun") {
		if slices.Contains([]string{"net", "net/http", "os/exec", "regexp", "log/slog", "runtime/cgo"}, d) {
			t.Errorf("afterrun links %s", d)
		}
	}
}
