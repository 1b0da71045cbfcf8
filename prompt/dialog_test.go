package prompt

import (
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"pathgrant/guard"
	"pathgrant/wire"
)

const testReason = "read /home/u/Downloads/report.csv is outside the workspace; reading it can be approved"

func readRequest() wire.Request {
	created := time.Now()
	return wire.Request{ID: "r1", Session: "0123456789abcdef", Agent: "claude", Tool: "Bash",
		Command: "cat ~/Downloads/report.csv", Op: guard.OpRead, Path: "/home/u/Downloads/report.csv",
		Requested: "~/Downloads/report.csv", Count: 3, Created: created, Expires: created.Add(10 * time.Minute),
		Suggested: guard.Scope{Op: guard.OpRead, Path: "/home/u/Downloads/report.csv", Kind: guard.KindFile},
		RequestContext: wire.RequestContext{Cwd: "/home/u/w/sub", Workspace: []string{"/home/u/w", "/home/u/lib"},
			Reason: testReason}}
}

// recorder collects decisions.
type recorder struct {
	mu  sync.Mutex
	got []wire.Decision
}

func (r *recorder) decide(d wire.Decision) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, d)
}

func (r *recorder) decisions() []wire.Decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]wire.Decision(nil), r.got...)
}

func newTestDialog(t *testing.T, req wire.Request) (*Dialog, *recorder, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	rec := &recorder{}
	d := NewDialog(req, rec.decide)
	w := test.NewTempWindow(t, d.Content())
	w.Canvas().SetOnTypedKey(d.TypedKey)
	return d, rec, w
}

// TestDialogChoices: each choice produces exactly the matching decision,
// once, and only after arming.
func TestDialogChoices(t *testing.T) {
	tests := []struct {
		name   string
		click  func(*Dialog)
		folder bool
		want   wire.Decision
	}{
		{"allow once", func(d *Dialog) { test.Tap(d.Once) }, false, wire.Decision{Scope: "once", Kind: guard.KindFile}},
		{"allow for this session", func(d *Dialog) { test.Tap(d.Session) }, false, wire.Decision{Scope: "session", Kind: guard.KindFile}},
		{"always on this device", func(d *Dialog) { test.Tap(d.Device) }, false, wire.Decision{Scope: "device", Kind: guard.KindFile}},
		{"session for the folder", func(d *Dialog) { test.Tap(d.Session) }, true, wire.Decision{Scope: "session", Kind: guard.KindFolder}},
		{"deny", func(d *Dialog) { test.Tap(d.Deny) }, false, wire.Decision{Scope: "deny"}},
		{"escape denies", func(d *Dialog) { d.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape}) }, false, wire.Decision{Scope: "deny"}},
		{"closing denies", func(d *Dialog) { d.Closed() }, false, wire.Decision{Scope: "deny"}},
		{"return takes the default", func(d *Dialog) { d.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) }, false, wire.Decision{Scope: "once", Kind: guard.KindFile}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, rec, _ := newTestDialog(t, readRequest())
			if tt.folder {
				d.Target.SetSelected(LabelFolder)
			}
			d.Arm()
			tt.click(d)
			tt.click(d) // a second way out must not decide again
			d.Closed()
			got := rec.decisions()
			if len(got) != 1 || got[0] != tt.want {
				t.Fatalf("decisions %+v, want exactly %+v", got, tt.want)
			}
		})
	}
}

// TestDialogDefaults: Allow once is the default (highlighted, and what
// Return takes); the target defaults to the single file.
func TestDialogDefaults(t *testing.T) {
	d, _, _ := newTestDialog(t, readRequest())
	if d.Once.Importance != widget.HighImportance || d.Session.Importance == widget.HighImportance {
		t.Fatalf("default button importance: once %v session %v", d.Once.Importance, d.Session.Importance)
	}
	if d.Target.Selected != LabelFile {
		t.Fatalf("default target %q, want %q", d.Target.Selected, LabelFile)
	}
}

// TestArmingDelay: before arming, tapping or pressing Return approves
// nothing; Deny works at once; the Prompter arms after its delay.
func TestArmingDelay(t *testing.T) {
	d, rec, _ := newTestDialog(t, readRequest())
	for _, b := range []*widget.Button{d.Once, d.Session, d.Device} {
		test.Tap(b)
	}
	d.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if got := rec.decisions(); len(got) != 0 || d.Armed() {
		t.Fatalf("decided before arming: %+v", got)
	}
	test.Tap(d.Deny)
	if got := rec.decisions(); len(got) != 1 || got[0].Scope != "deny" {
		t.Fatalf("deny before arming: %+v", got)
	}
}

// TestDeviceChoiceOnlyForReads: no durable choice is ever offered for
// anything but a read.
func TestDeviceChoiceOnlyForReads(t *testing.T) {
	for _, op := range guard.Ops {
		req := readRequest()
		req.Op = op
		d, _, w := newTestDialog(t, req)
		hasDevice := d.Device != nil
		found := false
		for _, o := range test.LaidOutObjects(w.Content()) {
			if b, ok := o.(*widget.Button); ok && b.Text == LabelDevice {
				found = true
			}
		}
		if want := op == guard.OpRead; hasDevice != want || found != want {
			t.Errorf("op %s: device choice present=%v/%v, want %v", op, hasDevice, found, want)
		}
	}
}

// settle ends a test's prompt for request r1 when the test ends: it waits
// until the prompt has armed (its timer runs on a goroutine of its own) and
// withdraws it, which stops its countdown, so nothing of this test touches
// the UI while the next one runs.
func settle(t *testing.T, p *Prompter) {
	t.Cleanup(func() {
		if d := p.dialog("r1"); d != nil {
			deadline := time.Now().Add(5 * time.Second)
			for !d.Armed() && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
		}
		p.Withdraw("r1")
	})
}

// TestPrompterArms: a prompt opened by the Prompter arms itself after the
// delay, not before.
func TestPrompterArms(t *testing.T) {
	a := test.NewTempApp(t)
	var decided []wire.Decision
	var mu sync.Mutex
	p := &Prompter{App: a, ArmDelay: 300 * time.Millisecond, Decide: func(id string, d wire.Decision) error {
		mu.Lock()
		defer mu.Unlock()
		decided = append(decided, d)
		return nil
	}}
	settle(t, p)
	p.Show(readRequest(), "K7MP3QXA")
	d := p.dialog("r1")
	if d == nil || d.Armed() {
		t.Fatal("allow armed at once")
	}
	want := "Approval code: K7MP3QXA — to approve from a terminal: pathgrant approve r1 --code K7MP3QXA"
	if !d.Code.Visible() || d.Code.Text != want {
		t.Fatalf("code line %q (shown %v), want %q", d.Code.Text, d.Code.Visible(), want)
	}
	deadline := time.Now().Add(3 * time.Second)
	for !d.Armed() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !d.Armed() || d.Once.Disabled() {
		t.Fatal("allow never armed")
	}
	test.Tap(d.Session)
	deadline = time.Now().Add(3 * time.Second)
	for {
		mu.Lock()
		n := len(decided)
		mu.Unlock()
		if n == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(decided) != 1 || decided[0].Scope != "session" {
		t.Fatalf("decided %+v", decided)
	}
}

// formRows maps each row label of the dialog's laid-out form to the text
// shown next to it.
func formRows(t *testing.T, w fyne.Window) map[string]string {
	t.Helper()
	rows := map[string]string{}
	for _, o := range test.LaidOutObjects(w.Content()) {
		f, ok := o.(*widget.Form)
		if !ok {
			continue
		}
		for _, it := range f.Items {
			if l, ok := it.Widget.(*widget.Label); ok {
				rows[it.Text] = l.Text
			}
		}
	}
	return rows
}

// TestDialogShowsOrigin: the prompt shows where the agent works, why the
// guard denied the access, and how long the request stays open.
func TestDialogShowsOrigin(t *testing.T) {
	req := readRequest()
	until := req.Expires.Local().Format("15:04:05")
	tests := []struct {
		name string
		edit func(*wire.Request)
		want map[string]string // row label -> text; "" means the row is absent
	}{
		{"all known", func(*wire.Request) {}, map[string]string{
			LabelCwd: "/home/u/w/sub", LabelWorkspace: "/home/u/w\n/home/u/lib", LabelReason: testReason}},
		{"workspace is the cwd", func(r *wire.Request) { r.Workspace = []string{r.Cwd} }, map[string]string{
			LabelCwd: "/home/u/w/sub", LabelWorkspace: ""}},
		{"unknown", func(r *wire.Request) { r.RequestContext = wire.RequestContext{}; r.Expires = time.Time{} }, map[string]string{
			LabelCwd: "–", LabelReason: "–", LabelWorkspace: "", LabelOpenUntil: "–"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req
			tt.edit(&r)
			_, _, w := newTestDialog(t, r)
			rows := formRows(t, w)
			for label, want := range tt.want {
				got, ok := rows[label]
				if want == "" && ok {
					t.Errorf("row %q shown (%q), want none", label, got)
				}
				if want != "" && got != want {
					t.Errorf("row %q = %q, want %q", label, got, want)
				}
			}
			if !r.Expires.IsZero() && !strings.HasPrefix(rows[LabelOpenUntil], until+" (in ") {
				t.Errorf("row %q = %q, want it to start with %q", LabelOpenUntil, rows[LabelOpenUntil], until)
			}
		})
	}
}

// TestDialogCountdown: Tick counts down to the expiry, then says expired.
func TestDialogCountdown(t *testing.T) {
	req := readRequest()
	d, _, w := newTestDialog(t, req)
	until := req.Expires.Local().Format("15:04:05")
	tests := []struct {
		name string
		now  time.Time
		want string
	}{
		{"ten minutes left", req.Expires.Add(-10 * time.Minute), until + " (in 10m0s)"},
		{"seconds left", req.Expires.Add(-41*time.Second - 300*time.Millisecond), until + " (in 41s)"},
		{"at the expiry", req.Expires, "expired"},
		{"after it", req.Expires.Add(time.Hour), "expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d.Tick(tt.now)
			if got := formRows(t, w)[LabelOpenUntil]; got != tt.want {
				t.Errorf("open until %q, want %q", got, tt.want)
			}
		})
	}
}

// TestNotificationHidesCode: the one notification per request names who
// asks and what, never the approval code, which only the window shows.
func TestNotificationHidesCode(t *testing.T) {
	a := test.NewTempApp(t)
	got := make(chan string, 1)
	p := &Prompter{App: a, Decide: func(string, wire.Decision) error { return nil }, ArmDelay: time.Millisecond,
		Notify: func(title, msg string) error { got <- title + "\n" + msg; return nil }}
	settle(t, p)
	p.Show(readRequest(), "K7MP3QXA")
	select {
	case text := <-got:
		if strings.Contains(text, "K7MP3QXA") || !strings.Contains(text, "/home/u/Downloads/report.csv") {
			t.Fatalf("notification %q", text)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notification")
	}
	if d := p.dialog("r1"); d == nil || !strings.Contains(d.Code.Text, "K7MP3QXA") {
		t.Fatal("the window does not show the code")
	}
}

// TestDialogWithoutCode: a window opened with no code shows no code line
// and asks for none.
func TestDialogWithoutCode(t *testing.T) {
	d, _, _ := newTestDialog(t, readRequest())
	if d.Code.Visible() || d.CodeEntry.Visible() {
		t.Fatalf("code line %q (shown %v) or entry shown without a code", d.Code.Text, d.Code.Visible())
	}
}

// TestDialogAsksCode: a window outside the daemon (`pathgrant settings`)
// asks for the code and sends what the person typed with an allow; a
// deny sends none.
func TestDialogAsksCode(t *testing.T) {
	tests := []struct {
		name  string
		typed string
		click func(*Dialog)
		want  wire.Decision
	}{
		{"allow sends the code", " K7MP3QXA ", func(d *Dialog) { test.Tap(d.Session) }, wire.Decision{Scope: "session", Kind: guard.KindFile, Code: "K7MP3QXA"}},
		{"allow with nothing typed", "", func(d *Dialog) { test.Tap(d.Once) }, wire.Decision{Scope: "once", Kind: guard.KindFile}},
		{"deny needs no code", "K7MP3QXA", func(d *Dialog) { test.Tap(d.Deny) }, wire.Decision{Scope: "deny"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, rec, _ := newTestDialog(t, readRequest())
			d.AskCode()
			if !d.CodeEntry.Visible() {
				t.Fatal("the code entry is hidden")
			}
			test.Type(d.CodeEntry, tt.typed)
			d.Arm()
			tt.click(d)
			if got := rec.decisions(); len(got) != 1 || got[0] != tt.want {
				t.Fatalf("decisions %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestPrompterAsksCode: a Prompter that runs outside the daemon opens
// windows that ask for the code; one inside it shows the code instead.
func TestPrompterAsksCode(t *testing.T) {
	a := test.NewTempApp(t)
	p := &Prompter{App: a, Decide: func(string, wire.Decision) error { return nil }, AskCode: true, ArmDelay: time.Millisecond}
	settle(t, p)
	p.Show(readRequest(), "")
	waitDialog := func(p *Prompter) *Dialog { // opened and armed: its timer has run
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if d := p.dialog("r1"); d != nil && d.Armed() {
				return d
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatal("no window opened")
		return nil
	}
	if d := waitDialog(p); !d.CodeEntry.Visible() {
		t.Error("the settings process's window does not ask for the code")
	}
	in := &Prompter{App: a, Decide: func(string, wire.Decision) error { return nil }, ArmDelay: time.Millisecond}
	settle(t, in)
	in.Show(readRequest(), "K7MP3QXA")
	if d := waitDialog(in); d.CodeEntry.Visible() {
		t.Error("the daemon's own window asks for a code it shows")
	}
}
