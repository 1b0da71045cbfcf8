package applink

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
)

// calls is an App whose calls reach l's service over an in-process pipe,
// on a real engine and store.
func calls(t *testing.T, l *Link) *App {
	t.Helper()
	st := ipctest.OpenStore(t, filepath.Join(t.TempDir(), "pathgrant.db"))
	srv := ipc.New(ipc.Config{Store: st, Home: t.TempDir(), Logger: ipctest.Quiet, Approver: l})
	l.Attach(srv.Engine(), st)
	return linkedApp(t, l)
}

// TestEveryCallOnAnEmptyDaemon: each call the settings window and the
// tray make answers on a daemon with nothing in it; one that failed would
// shut the link down for every call after it.
func TestEveryCallOnAnEmptyDaemon(t *testing.T) {
	l := New(Config{Fallback: &recorder{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	a := calls(t, l)
	tests := []struct {
		name string
		call func() error
	}{
		{"pending", func() error { _, err := a.Pending(); return err }},
		{"grants", func() error { _, err := a.Grants(); return err }},
		{"audit", func() error { _, err := a.Audit(grants.AuditFilter{}); return err }},
		{"denials", func() error { _, err := a.Denials(); return err }},
		{"sessions", func() error { _, err := a.Sessions(); return err }},
		{"state", func() error { _, err := a.State(); return err }},
		{"revoke session", func() error { _, err := a.RevokeSession("nobody"); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if _, err := a.State(); err != nil {
				t.Fatalf("the link after %s: %v", tc.name, err)
			}
		})
	}
}

// TestPauseIsTheDaemons: a pause ends by itself in the daemon, and one
// no tray offers is refused.
func TestPauseIsTheDaemons(t *testing.T) {
	l := New(Config{Fallback: &recorder{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	a := calls(t, l)
	st, err := a.Pause(200 * time.Millisecond)
	if err != nil || st.PausedUntil.IsZero() {
		t.Fatalf("pause: %+v %v", st, err)
	}
	waitFor(t, "the pause to end by itself", func() bool { st, err := a.State(); return err == nil && st.PausedUntil.IsZero() })
	for _, d := range []time.Duration{-time.Second, 25 * time.Hour} {
		if _, err := a.Pause(d); err == nil {
			t.Errorf("a pause of %s was taken", d)
		}
	}
}
