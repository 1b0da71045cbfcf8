package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"pathgrant/grants"
	"pathgrant/wire"
)

// TestAttack43UIAuditSymlinkSwap: an agent's refused read of an innocent
// file in ~/Documents, the file then replaced by a link into ~/.ssh
// before the person presses Allow… on the row: the request raised and the
// grant made name the file the link reaches, or none; the key is never
// read through the grant.
func TestAttack43UIAuditSymlinkSwap(t *testing.T) {
	tests := []struct {
		name   string
		before bool // the link is there before the refusal
		when   string
	}{
		{"link made after the refusal, before Allow…", false, "ask"},
		{"link made after Allow…, before the decision", false, "decide"},
		{"link there at the refusal", true, "ask"},
		{"link made after the grant", false, "after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPlace(t)
			ssh := filepath.Join(p.home, ".ssh")
			if err := os.MkdirAll(ssh, 0o700); err != nil {
				t.Fatal(err)
			}
			key := filepath.Join(ssh, "id_rsa")
			if err := os.WriteFile(key, []byte("KEY"), 0o600); err != nil {
				t.Fatal(err)
			}
			notes := filepath.Join(p.home, "Documents", "notes.txt")
			swap := func() {
				if err := os.Remove(notes); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				if err := os.Symlink(key, notes); err != nil {
					t.Fatal(err)
				}
			}
			if tt.before {
				swap()
			} else if err := os.WriteFile(notes, []byte("notes"), 0o600); err != nil {
				t.Fatal(err)
			}
			e, _ := p.start(t)
			sess := p.register(t, e)
			read(t, e, sess, notes)
			recs, err := e.cfg.Store.AuditRecords(grants.AuditFilter{Session: sess.ID, Kind: grants.KindRefuse})
			if err != nil || len(recs) == 0 {
				t.Fatalf("no refusal: %v %+v", err, recs)
			}
			rec := recs[len(recs)-1]
			t.Logf("record path %s", rec.Path)
			if !tt.before && tt.when == "ask" {
				swap()
			}
			r, aerr := e.AskFromAudit(itoa(rec.Seq))
			if aerr != nil {
				t.Logf("refused: %v", aerr)
				return
			}
			t.Logf("request path %s", r.Path)
			if tt.when == "decide" {
				swap()
			}
			got, derr := e.Decide(r.ID, wire.Decision{Scope: "session"})
			if derr != nil {
				t.Logf("decision refused: %v", derr)
				return
			}
			g, _ := e.cfg.Store.Get(got.Grant)
			t.Logf("grant %s %s", g.Kind, g.Path)
			if tt.when == "after" {
				swap()
			}
			for _, q := range []string{key, notes} {
				if out := outcome(read(t, e, sess, q)); out == "allowed" {
					t.Errorf("read %s after the grant: allowed", q)
				}
			}
		})
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
