package grants

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"pathgrant/guard"
)

// benchStore opens a store holding n session grants spread over 1,000
// folders, plus one grant on a real file that lookups can hit. The filler
// is written in a few large transactions: only lookups are measured.
func benchStore(b *testing.B, n int) (s *Store, hit, miss string) {
	b.Helper()
	dir := benchDir(b)
	s, err := Open(filepath.Join(b.TempDir(), "pathgrant.db"), Options{MachineID: "bench", NoWatch: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	if _, err := s.StartSession(Session{ID: "s1"}); err != nil {
		b.Fatal(err)
	}
	hit = filepath.Join(dir, "d7", "deep", "er", "target.txt")
	mustB(b, writeFile(hit))
	if _, err := s.Put(NewGrant{Scope: ScopeSession, Op: guard.OpRead, Path: hit, Kind: guard.KindFile, Session: "s1"}); err != nil {
		b.Fatal(err)
	}
	fill(b, s, dir, n-1)
	return s, hit, filepath.Join(dir, "d7", "deep", "er", "other.txt")
}

func fill(b *testing.B, s *Store, dir string, n int) {
	const batch = 10_000
	for start := 0; start < n; start += batch {
		err := s.update(func(tx *bolt.Tx) error {
			for i := start; i < min(start+batch, n); i++ {
				g := Grant{ID: newID(), Scope: ScopeSession, Op: guard.OpRead, Kind: guard.KindFile,
					Path: fmt.Sprintf("%s/d%d/f%d", dir, i%1000, i), Session: "s1", Created: s.now()}
				if err := insertGrant(tx, g); err != nil {
					return err
				}
			}
			return nil
		})
		mustB(b, err)
	}
}

func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{10, 100_000} {
		s, hit, miss := benchStore(b, n)
		v := s.View("s1")
		for name, path := range map[string]string{"hit": hit, "miss": miss} {
			b.Run(fmt.Sprintf("%s/grants=%d", name, n), func(b *testing.B) {
				for b.Loop() {
					if got := v.Lookup(guard.OpRead, path, false); (got != "") != (name == "hit") {
						b.Fatalf("Lookup(%s) = %q", path, got)
					}
				}
			})
		}
	}
}

// BenchmarkPut measures one approval: a write transaction and its fsync.
func BenchmarkPut(b *testing.B) {
	s, hit, _ := benchStore(b, 10)
	for b.Loop() {
		if _, err := s.Put(NewGrant{Scope: ScopeSession, Op: guard.OpRead, Path: hit, Kind: guard.KindFile, Session: "s1"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuditAppend measures one daemon audit record, committed.
func BenchmarkAuditAppend(b *testing.B) {
	s, _, _ := benchStore(b, 10)
	rec := Record{Kind: KindRequest, Session: "s1", Agent: "claude", Tool: "Read",
		RequestID: "r1", Op: guard.OpRead, Path: "/home/u/Downloads/report.pdf"}
	for b.Loop() {
		if err := s.Audit(rec); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func benchDir(b *testing.B) string {
	d, err := filepath.EvalSymlinks(b.TempDir())
	mustB(b, err)
	return d
}

func writeFile(p string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return os.WriteFile(p, []byte("x"), 0o600)
}

func mustB(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkOpen measures opening a store of 100,000 grants, including the
// full page walk and consistency check that guard against corruption.
func BenchmarkOpen(b *testing.B) {
	s, _, _ := benchStore(b, 100_000)
	path := s.Path()
	mustB(b, s.Close())
	for b.Loop() {
		s, err := Open(path, Options{MachineID: "bench", NoWatch: true})
		mustB(b, err)
		mustB(b, s.Close())
	}
}
