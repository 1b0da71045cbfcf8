package grants

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"pathgrant/guard"
)

func TestDeviceBinding(t *testing.T) {
	e := newEnv(t, nil)
	e.session("s1")
	p := e.file("a.txt")
	g := e.put(ScopeDevice, p, guard.KindFile)
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}
	// Copy the store as a backup tool or a sync client would.
	data, err := os.ReadFile(e.path)
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "pathgrant.db")
	if err := os.WriteFile(copyPath, data, 0o600); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name        string
		path        string
		machine     string
		honoured    bool
		foreignRecs int
	}{
		{"original on its machine", e.path, "machine-a", true, 0},
		{"copy on its machine", copyPath, "machine-a", true, 0},
		{"copy on another machine", copyPath, "machine-b", false, 1},
		{"copy on another machine again", copyPath, "machine-b", false, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := e.options(func(o *Options) { o.MachineID = tc.machine })
			s, err := Open(tc.path, o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, sess := range []string{"s1", "s2", ""} {
				if got := s.View(sess).Lookup(guard.OpRead, p, false) == g.ID; got != tc.honoured {
					t.Errorf("view %q honours the device grant = %v, want %v", sess, got, tc.honoured)
				}
			}
			err = s.View("s1").Use(g.ID)
			if tc.honoured != (err == nil) || (!tc.honoured && !errors.Is(err, ErrForeignDevice)) {
				t.Errorf("Use = %v, honoured %v", err, tc.honoured)
			}
			recs, err := s.AuditRecords(AuditFilter{Kind: KindForeignDevice})
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != tc.foreignRecs {
				t.Errorf("%d foreign-device records, want %d", len(recs), tc.foreignRecs)
			}
			if s.Foreign(g) == tc.honoured {
				t.Errorf("Foreign = %v, want %v", s.Foreign(g), !tc.honoured)
			}
		})
	}
}

func TestDeviceGrantsNeedMachineIdentity(t *testing.T) {
	e := newEnv(t, nil)
	e.s.binding = "" // as if /etc/machine-id were unreadable
	_, err := e.s.Put(NewGrant{Scope: ScopeDevice, Op: guard.OpRead, Path: e.file("a"), Kind: guard.KindFile})
	if !errors.Is(err, ErrNoDeviceIdentity) {
		t.Fatalf("Put device grant without identity = %v, want ErrNoDeviceIdentity", err)
	}
}

func TestDeviceBindingDependsOnKeyAndMachine(t *testing.T) {
	k1, k2 := make([]byte, 32), make([]byte, 32)
	k2[0] = 1
	a := deviceBinding(k1, "m1")
	if a != deviceBinding(k1, "m1") {
		t.Fatal("binding is not deterministic")
	}
	if a == deviceBinding(k2, "m1") || a == deviceBinding(k1, "m2") {
		t.Error("binding ignores the device key or the machine id")
	}
}
