package engine

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// place is a scratch home with a Downloads folder (the eligible root), a
// project folder and a store file outside the home folder, so that an
// engine can be stopped and started again on the same store.
type place struct {
	home, downloads, project, store string
}

func newPlace(t *testing.T) place {
	t.Helper()
	home := t.TempDir()
	p := place{home: home, downloads: filepath.Join(home, "Downloads"), project: filepath.Join(home, "project"),
		store: filepath.Join(t.TempDir(), "pathgrant.db")}
	for _, d := range []string{p.downloads, p.project, filepath.Join(home, "Documents")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// start opens the store and starts an engine on it, as the daemon does;
// stop (registered as a cleanup too) stops it and closes the store.
func (p place) start(t *testing.T, protected ...string) (e *Engine, stop func()) {
	t.Helper()
	return p.startWith(t, func(*Config) {}, protected...)
}

// startWith is start with the configuration changed by mutate.
func (p place) startWith(t *testing.T, mutate func(*Config), protected ...string) (e *Engine, stop func()) {
	t.Helper()
	st, err := grants.Open(p.store, grants.Options{MachineID: "test", NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Store: st, Home: p.home, Getenv: func(string) string { return "" },
		Device: guard.DevicePolicy{EligibleReadOnly: []string{p.downloads}, Protected: protected},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	mutate(&cfg)
	e = New(cfg)
	e.Start()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		e.Stop()
		e.Wait()
		st.Close()
	}
	t.Cleanup(stop)
	return e, stop
}

// register registers a token session over the project folder, as
// `pathgrant run` does: a restarted daemon adopts it.
func (p place) register(t *testing.T, e *Engine) *session {
	t.Helper()
	resp, err := e.Register(wire.SessionRequest{Agent: "claude", Cwd: p.project, Workspace: []string{p.project}}, "", newLineage(int32(os.Getpid())))
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	return e.sessions.get(resp.ID)
}

// read checks a read of path for sess without waiting.
func read(t *testing.T, e *Engine, sess *session, path string) wire.Answer {
	t.Helper()
	ans, err := e.check(context.Background(), sess, wire.CheckRequest{Tool: "Read", Op: guard.OpRead, Path: path}, "")
	if err != nil {
		t.Fatalf("check read %s: %v", path, err)
	}
	return ans
}

// outcome names what a check came to: allowed, asked (a request is
// pending), or the reason it was refused with.
func outcome(ans wire.Answer) string {
	switch {
	case ans.Decision == guard.Allow:
		return "allowed"
	case ans.Pending != "":
		return "asked"
	}
	return ans.Reason
}

// TestDenialsSurviveRestart: "Deny for this session" and "Deny on this
// device" are stored: a daemon started again on the same store denies
// both at once while the session carries on, and a new session is denied
// the device one only. The session denial ends with its session; the
// device denial stays until the person lifts it, and is lifted from the
// store too.
func TestDenialsSurviveRestart(t *testing.T) {
	p := newPlace(t)
	bySession, byDevice := filepath.Join(p.downloads, "a.txt"), filepath.Join(p.downloads, "b.txt")
	e, stop := p.start(t)
	sess := p.register(t, e)
	for _, d := range []struct {
		path string
		dec  wire.Decision
	}{
		{bySession, wire.Decision{Scope: "deny", Remember: true}},
		{byDevice, wire.Decision{Scope: "deny", Remember: true, Device: true}},
	} {
		ans := read(t, e, sess, d.path)
		if ans.Pending == "" {
			t.Fatalf("read %s: %q; want a request", d.path, ans.Reason)
		}
		if _, err := e.Decide(ans.Pending, d.dec); err != nil {
			t.Fatalf("decide %+v: %v", d.dec, err)
		}
	}
	stop()

	e, stop = p.start(t)
	sess = e.sessions.get(sess.ID)
	if sess == nil {
		t.Fatal("the session was not adopted")
	}
	other := p.register(t, e)
	tests := []struct {
		name string
		sess *session
		path string
		want string
	}{
		{"session denial, its session", sess, bySession, rememberedReason},
		{"device denial, its session", sess, byDevice, deviceDeniedReason},
		{"session denial, another session", other, bySession, "asked"},
		{"device denial, another session", other, byDevice, deviceDeniedReason},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := outcome(read(t, e, tt.sess, tt.path)); got != tt.want {
				t.Errorf("after a restart: %q; want %q", got, tt.want)
			}
		})
	}
	if _, err := e.endSession(sess, grants.EndReasonSessionEnd); err != nil {
		t.Fatal(err)
	}
	stop()

	e, _ = p.start(t)
	ds := e.Denials()
	if len(ds) != 1 || !ds[0].Device || ds[0].Path != byDevice {
		t.Fatalf("after the session ended and a restart: %+v; want the device denial alone", ds)
	}
	if err := e.LiftDenial(ds[0].ID); err != nil {
		t.Fatal(err)
	}
	stored, err := e.cfg.Store.Denials()
	if err != nil || len(stored) != 0 {
		t.Fatalf("stored after the lift: %+v, %v; want none", stored, err)
	}
}

// TestLaterGrantLiftsDenials: the person's later decision wins. A device
// grant over a folder lifts the device denials and session denials under
// it; a session grant lifts its own session's denials only, never a
// device denial, which still holds for another session.
func TestLaterGrantLiftsDenials(t *testing.T) {
	tests := []struct {
		name      string
		grant     wire.Decision
		wantLeft  []string // the denials left, by path base name
		otherSees string   // what another session's read of the device-denied file comes to
	}{
		{"device grant of the folder", wire.Decision{Scope: "device", Kind: guard.KindFolder}, nil, "allowed"},
		{"session grant of the folder", wire.Decision{Scope: "session", Kind: guard.KindFolder}, []string{"dev.txt"}, deviceDeniedReason},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPlace(t)
			sub := filepath.Join(p.downloads, "sub")
			if err := os.MkdirAll(sub, 0o700); err != nil {
				t.Fatal(err)
			}
			e, _ := p.start(t)
			sess, other := p.register(t, e), p.register(t, e)
			deny := func(name string, device bool) {
				ans := read(t, e, sess, filepath.Join(sub, name))
				if _, err := e.Decide(ans.Pending, wire.Decision{Scope: "deny", Remember: true, Device: device}); err != nil {
					t.Fatal(err)
				}
			}
			deny("sess.txt", false)
			deny("dev.txt", true)
			ans := read(t, e, sess, filepath.Join(sub, "new.txt"))
			if _, err := e.Decide(ans.Pending, tt.grant); err != nil {
				t.Fatalf("grant: %v", err)
			}
			var left []string
			for _, d := range e.Denials() {
				left = append(left, filepath.Base(d.Path))
			}
			if !equalStrings(left, tt.wantLeft) {
				t.Errorf("denials left: %v; want %v", left, tt.wantLeft)
			}
			if got := outcome(read(t, e, other, filepath.Join(sub, "dev.txt"))); got != tt.otherSees {
				t.Errorf("another session's read of the device-denied file: %q; want %q", got, tt.otherSees)
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSessionAgeCap: "until the session ends" means that. A session that
// ends with its launcher has no age cap, and its requests say none; one
// bound to no process keeps the daemon's cap (24 h) and its requests say
// when. A session a restarted daemon adopts keeps its own start time.
func TestSessionAgeCap(t *testing.T) {
	tests := []struct {
		name        string
		withProcess bool
		capped      bool
	}{
		{"ends with its launcher", true, false},
		{"bound to no process", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPlace(t)
			e, stop := p.start(t)
			resp, err := e.Register(wire.SessionRequest{Agent: "claude", Cwd: p.project, Workspace: []string{p.project}, EndWithLauncher: tt.withProcess},
				"", newLineage(int32(os.Getpid())))
			if err != nil {
				t.Fatal(err)
			}
			sess := e.sessions.get(resp.ID)
			ans := read(t, e, sess, filepath.Join(p.downloads, "a.txt"))
			r, _ := e.Request(ans.Pending)
			if capped := !r.SessionExpires.IsZero(); capped != tt.capped {
				t.Errorf("the request says the session expires %v; want a cap %v", r.SessionExpires, tt.capped)
			}
			if over := sess.Expires.Sub(sess.Started) > 25*time.Hour; over == tt.capped {
				t.Errorf("session expires %s after its start; want capped %v", sess.Expires.Sub(sess.Started), tt.capped)
			}
			started := sess.Started
			stop()
			time.Sleep(10 * time.Millisecond)
			e, _ = p.start(t)
			if again := e.sessions.get(resp.ID); again == nil || !again.Started.Equal(started) {
				t.Fatalf("after a restart the session is %+v; want it adopted, started %s", again, started)
			}
		})
	}
}
