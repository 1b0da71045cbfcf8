package grants

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"pathgrant/appdirs"
	"pathgrant/guard"
)

func TestOpenCreatesPrivateStore(t *testing.T) {
	e := newEnv(t, nil)
	for path, want := range map[string]fs.FileMode{filepath.Dir(e.path): 0o700, e.path: 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %04o, want %04o", path, got, want)
		}
	}
	leftovers, _ := filepath.Glob(e.path + ".new-*")
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestOpenNoCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pathgrant.db")
	_, err := Open(path, Options{NoCreate: true})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open(NoCreate) = %v, want ErrNotExist", err)
	}
	if _, serr := os.Stat(path); !errors.Is(serr, fs.ErrNotExist) {
		t.Error("Open(NoCreate) created the file")
	}
}

func TestDefaultPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cases := []struct {
		name, xdg, env, flag, want string
	}{
		{"xdg unset", "", "", "", filepath.Join(home, ".local/state/pathgrant/pathgrant.db")},
		{"xdg relative is ignored", "rel/state", "", "", filepath.Join(home, ".local/state/pathgrant/pathgrant.db")},
		{"xdg set", "/xdg/state", "", "", "/xdg/state/pathgrant/pathgrant.db"},
		{"env wins over xdg", "/xdg/state", "/env/p.db", "", "/env/p.db"},
		{"flag wins over env", "/xdg/state", "/env/p.db", "/flag/p.db", "/flag/p.db"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", tc.xdg)
			t.Setenv(appdirs.StoreEnv, tc.env)
			got, err := appdirs.Store(tc.flag, os.Getenv)
			if err != nil || got != tc.want {
				t.Errorf("appdirs.Store(%q) = %q, %v; want %q", tc.flag, got, err, tc.want)
			}
		})
	}
}

func TestOpenRefusesUnsafeFile(t *testing.T) {
	cases := []struct {
		name    string
		prepare func(t *testing.T, path string)
		root    bool // needs to chown
	}{
		{"group readable", func(t *testing.T, p string) { chmod(t, p, 0o640) }, false},
		{"world readable", func(t *testing.T, p string) { chmod(t, p, 0o604) }, false},
		{"group writable folder", func(t *testing.T, p string) { chmod(t, filepath.Dir(p), 0o770) }, false},
		{"symlink", func(t *testing.T, p string) {
			real := p + ".real"
			if err := os.Rename(p, real); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, p); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"owned by another user", func(t *testing.T, p string) {
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				t.Skip("needs root to chown")
			}
			e := newEnv(t, nil)
			if err := e.s.Close(); err != nil {
				t.Fatal(err)
			}
			tc.prepare(t, e.path)
			_, err := Open(e.path, e.options(nil))
			if !errors.Is(err, ErrUnsafeFile) {
				t.Fatalf("Open = %v, want ErrUnsafeFile", err)
			}
			if !strings.Contains(err.Error(), filepath.Dir(e.path)) {
				t.Errorf("error %q does not name the store", err)
			}
		})
	}
}

func chmod(t *testing.T, p string, mode fs.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func TestOpenAlreadyRunning(t *testing.T) {
	e := newEnv(t, nil)
	start := time.Now()
	_, err := Open(e.path, e.options(nil))
	took := time.Since(start)
	if !errors.Is(err, ErrAlreadyRunning) || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second Open = %v, want an 'already running' error", err)
	}
	if took > time.Second {
		t.Errorf("second Open took %v, want under a second", took)
	}
	// The first store is unaffected.
	if _, err := e.s.StartSession(Session{ID: "s"}); err != nil {
		t.Errorf("first store after a refused second open: %v", err)
	}
}

func TestOpenCorrupt(t *testing.T) {
	cases := []struct {
		name  string
		spoil func(t *testing.T, path string, data []byte) []byte
	}{
		{"empty", func(*testing.T, string, []byte) []byte { return nil }},
		{"garbage", func(_ *testing.T, _ string, d []byte) []byte { return bytes.Repeat([]byte("junk"), len(d)/4) }},
		{"truncated to one page", func(_ *testing.T, _ string, d []byte) []byte { return d[:4096] }},
		{"truncated by half", func(_ *testing.T, _ string, d []byte) []byte { return d[:len(d)/2] }},
		{"last data page cut off", func(t *testing.T, _ string, d []byte) []byte {
			m0, err0 := readMeta(bytes.NewReader(d), 0)
			m1, err1 := readMeta(bytes.NewReader(d), 4096)
			m, err := pickMeta(m0, err0, m1, err1)
			if err != nil {
				t.Fatal(err)
			}
			return d[:(m.pgid-1)*uint64(m.pageSize)]
		}},
		{"meta pages zeroed", func(_ *testing.T, _ string, d []byte) []byte {
			copy(d, make([]byte, 2*4096))
			return d
		}},
		{"data pages zeroed", func(_ *testing.T, _ string, d []byte) []byte {
			copy(d[2*4096:], make([]byte, len(d)-2*4096))
			return d
		}},
		{"bbolt file without pathgrant schema", func(t *testing.T, p string, _ []byte) []byte {
			other := p + ".other"
			db, err := bolt.Open(other, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("x")); return err }); err != nil {
				t.Fatal(err)
			}
			_ = db.Close()
			d, err := os.ReadFile(other)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			e.session("s1")
			for i := range 60 { // enough data for several pages
				e.put(ScopeDevice, e.file("f"+string(rune('a'+i%26))+strings.Repeat("x", i)), guard.KindFile)
			}
			if err := e.s.Close(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(e.path)
			if err != nil {
				t.Fatal(err)
			}
			spoiled := tc.spoil(t, e.path, data)
			if err := os.WriteFile(e.path, spoiled, 0o600); err != nil {
				t.Fatal(err)
			}
			assertCorrupt(t, e.path, e.options(nil), spoiled)
		})
	}
}

func assertCorrupt(t *testing.T, path string, o Options, want []byte) {
	t.Helper()
	s, err := Open(path, o)
	if err == nil {
		_ = s.Close()
		t.Fatal("Open of a corrupt store succeeded")
	}
	var ce *CorruptError
	if !errors.Is(err, ErrCorrupt) || !errors.As(err, &ce) {
		t.Fatalf("Open = %v, want a CorruptError", err)
	}
	msg := err.Error()
	for _, part := range []string{"store " + path + " is corrupt", "mv " + path + " " + path + ".corrupt", "restart"} {
		if !strings.Contains(msg, part) {
			t.Errorf("error %q lacks %q", msg, part)
		}
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Error("Open modified the corrupt file")
	}
}

func TestMigrationHook(t *testing.T) {
	e := newEnv(t, nil)
	ran := 0
	steps := []migration{func(tx *bolt.Tx) error {
		ran++
		_, err := tx.CreateBucket([]byte("v2"))
		return err
	}}
	for range 2 {
		err := e.s.update(func(tx *bolt.Tx) error {
			if need, err := needsUpgrade(tx, steps); err != nil || !need {
				return err
			}
			return migrate(tx, steps)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if ran != 1 {
		t.Errorf("migration ran %d times, want 1", ran)
	}
	err := e.s.view(func(tx *bolt.Tx) error {
		v, err := readVersion(tx)
		if v != 2 || tx.Bucket([]byte("v2")) == nil {
			t.Errorf("after migration: version %d, bucket %v", v, tx.Bucket([]byte("v2")) != nil)
		}
		if _, err := needsUpgrade(tx, nil); err == nil {
			t.Error("a version-2 store was accepted by version-1 code")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCloseTwice(t *testing.T) {
	e := newEnv(t, nil)
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.s.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if got := e.s.View("s").Lookup(guard.OpRead, "/x", false); got != "" {
		t.Errorf("Lookup on a closed store = %q", got)
	}
}
