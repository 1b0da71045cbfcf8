package grants

import (
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"pathgrant/guard"
)

// Every state change leaves exactly one record; refused changes and reads
// leave none.
func TestAuditCompleteness(t *testing.T) {
	e := newEnv(t, nil)
	e.session("s1")
	p := e.file("a.txt")
	v := e.s.View("s1")
	var sess, once, dev, doomed, short Grant
	steps := []struct {
		name string
		do   func() error
		want []Kind
	}{
		{"put session grant", func() error { sess = e.put(ScopeSession, p, guard.KindFile); return nil }, []Kind{KindApprove}},
		{"lookups", func() error { v.Lookup(guard.OpRead, p, false); v.Lookup(guard.OpRead, p, true); return nil }, nil},
		{"use", func() error { return v.Use(sess.ID) }, []Kind{KindUse}},
		{"use two grants", func() error {
			once = e.put(ScopeOnce, p, guard.KindFile)
			return v.Use(sess.ID, once.ID)
		}, []Kind{KindApprove, KindUse, KindUse}},
		{"use consumed once grant", func() error { return expect(v.Use(once.ID), ErrEnded) }, nil},
		{"put device grant", func() error { dev = e.put(ScopeDevice, p, guard.KindFile); return nil }, []Kind{KindApprove}},
		{"revoke", func() error { return e.s.Revoke(dev.ID) }, []Kind{KindRevoke}},
		{"revoke again", func() error { return expect(e.s.Revoke(dev.ID), ErrEnded) }, nil},
		{"refused put", func() error {
			_, err := e.s.Put(NewGrant{Scope: ScopeDevice, Op: guard.OpWrite, Path: p, Kind: guard.KindFile})
			return expect(err, ErrDeviceReadOnly)
		}, nil},
		{"replace a granted file", func() error {
			doomed = e.put(ScopeSession, e.file("b.txt"), guard.KindFile)
			must(t, os.Remove(doomed.Path))
			v.Lookup(guard.OpRead, doomed.Path, false)
			return expect(v.Use(doomed.ID), ErrEnded)
		}, []Kind{KindApprove, KindInvalidate}},
		{"expire", func() error {
			short = e.put(ScopeOnce, p, guard.KindFile)
			e.clock.Add(DefaultOnceTTL)
			_, err := e.s.sweep()
			return err
		}, []Kind{KindApprove, KindExpire}},
		{"sweep again", func() error { _, err := e.s.sweep(); return err }, nil},
		{"end session", func() error { _, err := e.s.EndSession("s1"); return err }, []Kind{KindExpire}},
		{"end session again", func() error { _, err := e.s.EndSession("s1"); return err }, nil},
		{"daemon records", func() error {
			return errors.Join(e.s.Audit(Record{Kind: KindDeny, Session: "s1"}),
				e.s.Audit(Record{Kind: KindConflict}), e.s.Audit(Record{Kind: KindForged}),
				e.s.Audit(Record{Kind: KindStale}), e.s.Audit(Record{Kind: KindRequest}))
		}, []Kind{KindDeny, KindConflict, KindForged, KindStale, KindRequest}},
	}
	for _, st := range steps {
		before := len(e.audit())
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := e.kindsSince(before); !slices.Equal(got, st.want) {
			t.Errorf("%s: records %v, want %v", st.name, got, st.want)
		}
	}
	checkGrantRecords(t, e.audit(), map[string]Grant{sess.ID: sess, once.ID: once, dev.ID: dev, doomed.ID: doomed, short.ID: short})
}

func expect(err, want error) error {
	if !errors.Is(err, want) {
		return errors.Join(errors.New("unexpected result"), err)
	}
	return nil
}

// checkGrantRecords asserts each grant record names the grant fully and
// that sequence numbers increase.
func checkGrantRecords(t *testing.T, recs []Record, gs map[string]Grant) {
	t.Helper()
	for i, r := range recs {
		if i > 0 && r.Seq <= recs[i-1].Seq {
			t.Errorf("record %d: seq %d after %d", i, r.Seq, recs[i-1].Seq)
		}
		if r.Time.IsZero() {
			t.Errorf("record %d has no time", i)
		}
		g, ok := gs[r.Grant]
		if !ok {
			continue
		}
		if r.Op != g.Op || r.Path != g.Path || r.Scope != g.Scope || r.Session != "s1" || r.Reason == "" {
			t.Errorf("record %+v does not describe grant %s", r, g.ID)
		}
	}
	if recs[0].Tool != "Read" || recs[0].RequestID != "r1" || recs[0].Agent != "claude" {
		t.Errorf("approve record lost the request: %+v", recs[0])
	}
}

// The record type has no field that could hold contents, output,
// environment or tokens: its fields are exactly these.
func TestRecordHasNoPayloadFields(t *testing.T) {
	want := []string{"Seq", "Time", "Kind", "Session", "Workflow", "Agent", "Tool", "RequestID",
		"Op", "Path", "Scope", "Grant", "Reason"}
	var got []string
	rt := reflect.TypeFor[Record]()
	for i := range rt.NumField() {
		got = append(got, rt.Field(i).Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Record fields = %v, want %v; a new field must not be able to carry payloads", got, want)
	}
}

func TestAuditAppendAndFilter(t *testing.T) {
	e := newEnv(t, nil)
	t0 := e.clock.Now()
	add := func(kind Kind, session string, reason string) {
		t.Helper()
		if err := e.s.Audit(Record{Kind: kind, Session: session, Reason: reason}); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(time.Minute)
	}
	add(KindRequest, "s1", "first")
	add(KindDeny, "s2", "line one\nline two\x1b[31m")
	add(KindStale, "s1", strings.Repeat("x", 1000))
	if err := e.s.Audit(Record{Kind: "exfiltrate"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Audit(unknown kind) = %v, want ErrInvalid", err)
	}
	cases := []struct {
		name string
		f    AuditFilter
		want []Kind
	}{
		{"all", AuditFilter{}, []Kind{KindRequest, KindDeny, KindStale}},
		{"since", AuditFilter{Since: t0.Add(time.Minute)}, []Kind{KindDeny, KindStale}},
		{"session", AuditFilter{Session: "s1"}, []Kind{KindRequest, KindStale}},
		{"both", AuditFilter{Since: t0.Add(time.Minute), Session: "s1"}, []Kind{KindStale}},
		{"kind", AuditFilter{Kind: KindDeny}, []Kind{KindDeny}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []Kind
			if err := e.s.EachAudit(tc.f, func(r Record) error { got = append(got, r.Kind); return nil }); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("kinds %v, want %v", got, tc.want)
			}
		})
	}
	recs := e.audit()
	if r := recs[1].Reason; strings.ContainsAny(r, "\n\x1b") {
		t.Errorf("reason keeps control characters: %q", r)
	}
	if n := len([]rune(recs[2].Reason)); n > maxReason {
		t.Errorf("reason is %d runes, want at most %d", n, maxReason)
	}
}

// TestAuditBoundsEveryField: what a caller names in a record (its tool,
// call id, agent, workflow, path) is bounded and free of control
// characters, like the reason, so a flood of refusals carries no payload.
func TestAuditBoundsEveryField(t *testing.T) {
	e := newEnv(t, nil)
	long := strings.Repeat("y", 20000) + "\x1b[2J"
	if err := e.s.Audit(Record{Kind: KindRefuse, Tool: long, RequestID: long, Agent: long, Workflow: long, Path: "/" + long}); err != nil {
		t.Fatal(err)
	}
	r := e.audit()[0]
	for _, f := range []struct {
		name, v string
		max     int
	}{{"tool", r.Tool, maxName}, {"request id", r.RequestID, maxName}, {"agent", r.Agent, maxName},
		{"workflow", r.Workflow, maxName}, {"path", r.Path, maxPath}} {
		t.Run(f.name, func(t *testing.T) {
			if n := len([]rune(f.v)); n > f.max || strings.ContainsRune(f.v, '\x1b') {
				t.Errorf("%d runes (max %d), control characters kept: %v", n, f.max, strings.ContainsRune(f.v, '\x1b'))
			}
		})
	}
}
