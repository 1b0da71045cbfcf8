package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"pathgrant/devicepolicy"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// refusedRecord is the number of the audit record that refused path for
// sess, after a read of it was refused.
func refusedRecord(t *testing.T, e *Engine, sess *session, path string) string {
	t.Helper()
	if got := outcome(read(t, e, sess, path)); got == "allowed" || got == "asked" {
		t.Fatalf("read %s: %s; want it refused", path, got)
	}
	recs, err := e.cfg.Store.AuditRecords(grants.AuditFilter{Session: sess.ID, Kind: grants.KindRefuse})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Path == path {
			return strconv.FormatUint(r.Seq, 10)
		}
	}
	t.Fatalf("no refused record of %s in %+v", path, recs)
	return ""
}

// TestAllowFromAudit: the audit's refused row becomes, through
// AskFromAudit, a normal request in the inbox for the record's session,
// raised by the person; decided for the session, the same read is
// allowed when the agent tries again, though the file lies outside every
// eligible root. Once the session ended, the row asks for this device
// only, and a session grant is refused.
func TestAllowFromAudit(t *testing.T) {
	p := newPlace(t)
	e, _ := p.start(t)
	sess := p.register(t, e)
	spec := filepath.Join(p.home, "Documents", "spec.pdf")
	other := filepath.Join(p.home, "Documents", "other.pdf")
	for _, f := range []string{spec, other} {
		if err := os.WriteFile(f, []byte("%PDF"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	id := refusedRecord(t, e, sess, spec)
	r, aerr := e.AskFromAudit(id)
	if aerr != nil {
		t.Fatalf("AskFromAudit: %v", aerr)
	}
	if r.State != wire.StatePending || r.Session != sess.ID || r.Path != spec || r.Asked != wire.AskedAudit {
		t.Fatalf("request %+v; want pending for %s, of %s, asked from the audit", r, sess.ID, spec)
	}
	if ps := e.Pending(); len(ps) != 1 || ps[0].ID != r.ID {
		t.Fatalf("pending: %+v; want the one request", ps)
	}
	if _, err := e.Decide(r.ID, wire.Decision{Scope: "session"}); err != nil {
		t.Fatalf("decide: %v", err)
	}
	if got := outcome(read(t, e, sess, spec)); got != "allowed" {
		t.Fatalf("the retry: %q; want allowed", got)
	}

	id = refusedRecord(t, e, sess, other)
	if _, err := e.endSession(sess, grants.EndReasonSessionEnd); err != nil {
		t.Fatal(err)
	}
	r, aerr = e.AskFromAudit(id)
	if aerr != nil {
		t.Fatalf("AskFromAudit after the session ended: %v", aerr)
	}
	if r.Session != "" {
		t.Fatalf("request for session %q; want this device's (none)", r.Session)
	}
	if _, err := e.Decide(r.ID, wire.Decision{Scope: "session"}); err == nil {
		t.Fatal("a session grant for a request of no session was made")
	}
	if _, err := e.Decide(r.ID, wire.Decision{Scope: "device"}); err != nil {
		t.Fatalf("device grant: %v", err)
	}
	next := p.register(t, e)
	if got := outcome(read(t, e, next, other)); got != "allowed" {
		t.Fatalf("a new session's read after the device grant: %q; want allowed", got)
	}
}

// TestAskRefuses: what the person may ask for themselves, and what is
// refused with a reason whoever asks: a write, a hidden (configuration,
// credential, state) folder, anything outside the home folder, the home
// folder itself, a protected path, an access denied on this device.
func TestAskRefuses(t *testing.T) {
	p := newPlace(t)
	protected := filepath.Join(p.home, "Documents", "vault")
	if err := os.MkdirAll(filepath.Join(p.home, "Music"), 0o700); err != nil {
		t.Fatal(err)
	}
	e, _ := p.start(t, protected)
	sess := p.register(t, e)
	denied := filepath.Join(p.downloads, "denied.txt")
	ans := read(t, e, sess, denied)
	if _, err := e.Decide(ans.Pending, wire.Decision{Scope: "deny", Remember: true, Device: true}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		op   wire.Op
		path string
		want Code // 0: a request is raised
	}{
		{"a document", guard.OpRead, filepath.Join(p.home, "Documents", "spec.pdf"), 0},
		{"a file under the eligible root", guard.OpRead, filepath.Join(p.downloads, "a.txt"), 0},
		{"a folder of the person's", guard.OpRead, filepath.Join(p.home, "Music"), 0},
		{"a write", guard.OpWrite, filepath.Join(p.home, "Documents", "spec.pdf"), Forbidden},
		{"a delete", guard.OpDelete, filepath.Join(p.downloads, "a.txt"), Forbidden},
		{"a key", guard.OpRead, filepath.Join(p.home, ".ssh", "id_rsa"), Forbidden},
		{"configuration", guard.OpRead, filepath.Join(p.home, ".config", "app", "settings.json"), Forbidden},
		{"a hidden file in a document folder", guard.OpRead, filepath.Join(p.home, "Documents", ".env"), Forbidden},
		{"outside the home folder", guard.OpRead, "/etc/passwd", Forbidden},
		{"the home folder", guard.OpRead, p.home, Forbidden},
		{"a protected path", guard.OpRead, filepath.Join(protected, "key"), Forbidden},
		{"a folder holding a protected path", guard.OpRead, filepath.Join(p.home, "Documents"), Forbidden},
		{"denied on this device", guard.OpRead, denied, Conflict},
		{"a relative path", guard.OpRead, "Documents/spec.pdf", BadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := e.AskForPath(tt.op, tt.path)
			switch {
			case tt.want == 0 && err != nil:
				t.Fatalf("AskForPath(%s %s): %v; want a request", tt.op, tt.path, err)
			case tt.want == 0 && (r.State != wire.StatePending || r.Asked != wire.AskedSettings || r.Session != ""):
				t.Fatalf("request %+v; want a pending device request asked from settings", r)
			case tt.want != 0 && (err == nil || err.Code != tt.want):
				t.Fatalf("AskForPath(%s %s): %v; want code %d", tt.op, tt.path, err, tt.want)
			}
		})
	}
}

// TestAskNeverEligible: a folder the device policy never offers
// (devicepolicy.NeverEligible) is never asked for either, nor a folder
// holding one; beside it the person's files are.
func TestAskNeverEligible(t *testing.T) {
	p := newPlace(t)
	pictures := filepath.Join(p.home, "Pictures")
	never := filepath.Join(pictures, "vault")
	if err := os.MkdirAll(never, 0o700); err != nil {
		t.Fatal(err)
	}
	e, _ := p.startWith(t, func(c *Config) {
		c.DeviceFile = func() devicepolicy.Policy {
			return devicepolicy.Policy{EligibleReadOnly: []string{p.downloads}, NeverEligible: []string{never}}
		}
	})
	tests := []struct {
		name string
		path string
		ok   bool
	}{
		{"a picture", filepath.Join(pictures, "cat.png"), true},
		{"in the never-offered folder", filepath.Join(never, "key.png"), false},
		{"the folder holding it", pictures, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := e.AskForPath(guard.OpRead, tt.path); (err == nil) != tt.ok {
				t.Fatalf("AskForPath(%s): %v; want a request %v", tt.path, err, tt.ok)
			}
		})
	}
}

// TestEditedScope: the scope the person edits before allowing
// (Decision.Path) is the request's path or a folder above it, up to and
// including the eligible root it lies in, confirmed as a folder; never
// wider, never beside it, never holding a protected path; and never
// through an approval code, which buys its own choice's scope alone.
func TestEditedScope(t *testing.T) {
	p := newPlace(t) // the paths the rows name; each row has a place of its own like it
	deep := filepath.Join(p.downloads, "sub", "deep")
	file := filepath.Join(deep, "a.txt")
	tests := []struct {
		name   string
		dec    wire.Decision
		byCode bool
		want   Code   // 0: granted
		grant  string // the path granted
	}{
		{"the file itself", wire.Decision{Scope: "session", Path: file}, false, 0, file},
		{"its folder", wire.Decision{Scope: "session", Path: deep, Kind: guard.KindFolder}, false, 0, deep},
		{"the eligible root", wire.Decision{Scope: "device", Path: p.downloads, Kind: guard.KindFolder}, false, 0, p.downloads},
		{"above the eligible root", wire.Decision{Scope: "session", Path: p.home, Kind: guard.KindFolder}, false, Forbidden, ""},
		{"beside the request", wire.Decision{Scope: "session", Path: filepath.Join(p.downloads, "other"), Kind: guard.KindFolder}, false, Forbidden, ""},
		{"a folder not confirmed", wire.Decision{Scope: "session", Path: deep}, false, BadRequest, ""},
		{"a relative path", wire.Decision{Scope: "session", Path: "sub/deep", Kind: guard.KindFolder}, false, BadRequest, ""},
		{"an unclean path", wire.Decision{Scope: "session", Path: deep + "/../deep", Kind: guard.KindFolder}, false, BadRequest, ""},
		{"a folder holding a protected path", wire.Decision{Scope: "session", Path: filepath.Join(p.downloads, "sub"), Kind: guard.KindFolder}, false, Forbidden, ""},
		{"an edit through a code", wire.Decision{Scope: "session", Path: deep, Kind: guard.KindFolder}, true, Forbidden, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := p.fresh(t)
			secret := filepath.Join(p.downloads, "sub", "secret")
			for _, d := range []string{deep, secret} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(file, []byte("a"), 0o600); err != nil {
				t.Fatal(err)
			}
			var protected []string
			if tt.want == Forbidden && tt.dec.Path == filepath.Join(p.downloads, "sub") {
				protected = []string{secret}
			}
			e, _ := p.start(t, protected...)
			sess := p.register(t, e)
			ans := read(t, e, sess, file)
			if ans.Pending == "" {
				t.Fatalf("read %s: %q; want a request", file, ans.Reason)
			}
			var r wire.Request
			var err *Error
			if tt.byCode {
				r, err = e.DecideWithCode(ans.Pending, tt.dec)
			} else {
				var derr error
				r, derr = e.Decide(ans.Pending, tt.dec)
				if derr != nil && !errors.As(derr, &err) {
					t.Fatalf("decide: %v", derr)
				}
			}
			if tt.want != 0 {
				if err == nil || err.Code != tt.want {
					t.Fatalf("decide %+v: %v; want code %d", tt.dec, err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("decide %+v: %v", tt.dec, err)
			}
			g, gerr := e.cfg.Store.Get(r.Grant)
			if gerr != nil || g.Path != tt.grant {
				t.Fatalf("grant %+v, %v; want one of %s", g, gerr, tt.grant)
			}
		})
	}
}

// fresh is a place at the same paths as p with a store of its own and
// nothing in its folders: p's folders are emptied.
func (p place) fresh(t *testing.T) place {
	t.Helper()
	for _, d := range []string{p.downloads, p.project} {
		if err := os.RemoveAll(d); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	p.store = filepath.Join(t.TempDir(), "pathgrant.db")
	return p
}

// TestEditedScopeOfAnAskedFile: a file the person asked for outside every
// eligible root may be widened to a folder above it up to the folder of
// the home folder it lies in (~/Documents), never to the home folder.
func TestEditedScopeOfAnAskedFile(t *testing.T) {
	p := newPlace(t)
	deep := filepath.Join(p.home, "Documents", "specs", "v2")
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(deep, "spec.pdf")
	if err := os.WriteFile(file, []byte("%PDF"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		ok   bool
	}{
		{"its folder", deep, true},
		{"the folder of the home folder", filepath.Join(p.home, "Documents"), true},
		{"the home folder", p.home, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := p.fresh(t).start(t)
			r, aerr := e.AskForPath(guard.OpRead, file)
			if aerr != nil {
				t.Fatal(aerr)
			}
			_, err := e.Decide(r.ID, wire.Decision{Scope: "device", Path: tt.path, Kind: guard.KindFolder})
			if (err == nil) != tt.ok {
				t.Fatalf("a device grant of %s: %v; want granted %v", tt.path, err, tt.ok)
			}
		})
	}
}
