package prompt

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
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
		{"deny for this session", func(d *Dialog) { test.Tap(d.DenySession) }, false, wire.Decision{Scope: "deny", Remember: true}},
		{"deny on this device", func(d *Dialog) { test.Tap(d.DenyDevice) }, false, wire.Decision{Scope: "deny", Remember: true, Device: true}},
		{"alt+e denies on this device", func(d *Dialog) { d.Press(fyne.KeyE) }, false, wire.Decision{Scope: "deny", Remember: true, Device: true}},
		{"once for a folder above", func(d *Dialog) { d.Target.SetSelected("~/Downloads"); test.Tap(d.Once) }, false,
			wire.Decision{Scope: "once", Kind: guard.KindFolder, Path: "/home/u/Downloads"}},
		{"alt+o allows once", func(d *Dialog) { d.Press(fyne.KeyO) }, false, wire.Decision{Scope: "once", Kind: guard.KindFile}},
		{"alt+r denies for the session", func(d *Dialog) { d.Press(fyne.KeyR) }, false, wire.Decision{Scope: "deny", Remember: true}},
		{"session for an hour", func(d *Dialog) { d.SessionFor.SetSelected("for 1 hour"); test.Tap(d.Session) }, false,
			wire.Decision{Scope: "session", Kind: guard.KindFile, For: "1h"}},
		{"device for a week", func(d *Dialog) { d.DeviceFor.SetSelected("for 7 days"); test.Tap(d.Device) }, false,
			wire.Decision{Scope: "device", Kind: guard.KindFile, For: "168h"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", "/home/u")
			req := readRequest()
			req.Path = "/home/u/Downloads/q3/report.csv"
			d, rec, _ := newTestDialog(t, req)
			if tt.folder {
				d.Target.SetSelected(LabelFolder)
			}
			d.Arm()
			tt.click(d)
			tt.click(d) // a second way out must not decide again
			test.Tap(d.Deny)
			got := rec.decisions()
			if len(got) != 1 || got[0] != tt.want {
				t.Fatalf("decisions %+v, want exactly %+v", got, tt.want)
			}
		})
	}
}

// TestDialogDefaults: Allow once is the default (highlighted; Return
// never takes it); the target defaults to the single file.
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
	for _, k := range []fyne.KeyName{fyne.KeyO, fyne.KeyS, fyne.KeyA} {
		if d.Press(k) {
			t.Errorf("Alt+%s pressed a disarmed button", k)
		}
	}
	if got := rec.decisions(); len(got) != 0 || d.Armed() {
		t.Fatalf("decided before arming: %+v", got)
	}
	test.Tap(d.Deny)
	if got := rec.decisions(); len(got) != 1 || got[0].Scope != "deny" {
		t.Fatalf("deny before arming: %+v", got)
	}
}

// TestDeviceChoiceOnlyForReads: no durable choice is ever offered for
// anything but a read, read-only, or a connection, to its one
// destination.
func TestDeviceChoiceOnlyForReads(t *testing.T) {
	for _, op := range append(slices.Clone(guard.Ops), guard.OpConnect) {
		t.Run(string(op), func(t *testing.T) {
			req := readRequest()
			req.Op = op
			d, _, w := newTestDialog(t, req)
			want := map[guard.Op]string{guard.OpRead: LabelDevice, guard.OpConnect: LabelDeviceConnect}[op]
			var shown []string
			for _, o := range test.LaidOutObjects(w.Content()) {
				if b, ok := o.(*widget.Button); ok && (b.Text == LabelDevice || b.Text == LabelDeviceConnect) {
					shown = append(shown, b.Text)
				}
			}
			switch {
			case want == "" && (d.Device != nil || len(shown) != 0):
				t.Errorf("a device choice %v for %s", shown, op)
			case want != "" && (d.Device == nil || d.Device.Text != want || len(shown) != 1 || shown[0] != want):
				t.Errorf("device choices shown %v for %s, want one %q", shown, op, want)
			}
		})
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
// guard denied the access (without repeating the path), whose session it
// is, and rows only for what is known.
func TestDialogShowsOrigin(t *testing.T) {
	req := readRequest()
	started := time.Date(2026, 12, 4, 14, 2, 0, 0, time.Local)
	tests := []struct {
		name string
		edit func(*wire.Request)
		want map[string]string // row label -> text; "" means the row is absent
	}{
		{"all known", func(r *wire.Request) { r.SessionStarted = started; r.Workflow = "review" }, map[string]string{
			LabelSessionOf: "Claude, in /home/u/w/sub, started 14:02", LabelWorkspace: "/home/u/w\n/home/u/lib",
			LabelReason: "This file is outside the workspace", "Workflow": "review",
			"Command": "cat ~/Downloads/report.csv"}},
		{"workspace is the cwd, no workflow", func(r *wire.Request) { r.Workspace = []string{r.Cwd} }, map[string]string{
			LabelSessionOf: "Claude, in /home/u/w/sub", LabelWorkspace: "", "Workflow": ""}},
		{"a search's input", func(r *wire.Request) { r.Command = ""; r.Input = "pattern: TODO, path: ~/Downloads" }, map[string]string{
			"Input": "pattern: TODO, path: ~/Downloads", "Command": ""}},
		{"unknown", func(r *wire.Request) {
			r.RequestContext = wire.RequestContext{}
			r.Expires = time.Time{}
			r.Agent = ""
		}, map[string]string{
			LabelSessionOf: "The agent", LabelReason: "–", LabelWorkspace: ""}},
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
			if strings.Contains(rows[LabelReason], r.Path) {
				t.Errorf("the reason repeats the path: %q", rows[LabelReason])
			}
		})
	}
}

// TestDialogWaiting: the window follows the agent's one clock through
// Update: the waiting calls, the seconds left, then that it gave up.
func TestDialogWaiting(t *testing.T) {
	d, _, _ := newTestDialog(t, readRequest())
	now := time.Now()
	r := d.Request
	r.Waiting, r.WaitUntil, r.Count = 50, now.Add(42*time.Second+400*time.Millisecond), 50
	d.Update(r)
	d.Tick(now)
	if got, want := d.Waiting.Text, "Claude stops waiting in 42 s (50 calls wait)"; got != want {
		t.Errorf("waiting %q, want %q", got, want)
	}
	if d.Asked.Text != "asked 50 times" {
		t.Errorf("asked %q", d.Asked.Text)
	}
	d.Tick(now.Add(43 * time.Second))
	if got, want := d.Waiting.Text, "Claude stopped waiting; approving lets its next try through"; got != want {
		t.Errorf("after the wait %q, want %q", got, want)
	}
	other := r
	other.ID, other.Waiting = "r2", 7
	d.Update(other)
	if d.Request.Waiting != 50 {
		t.Error("another request's update changed this dialog")
	}
}

// TestDialogFolderConfirm: a device grant of a whole folder is decided
// only after the second question is answered yes; a file's is not asked.
func TestDialogFolderConfirm(t *testing.T) {
	tests := []struct {
		name   string
		folder bool
		answer bool
		asked  bool
		want   int
	}{
		{"file: no question", false, false, false, 1},
		{"folder, yes", true, true, true, 1},
		{"folder, no", true, false, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, rec, _ := newTestDialog(t, readRequest())
			asked := ""
			d.Confirm = func(msg string, ok func()) {
				asked = msg
				if tt.answer {
					ok()
				}
			}
			if tt.folder {
				d.Target.SetSelected(LabelFolder)
			}
			d.Arm()
			test.Tap(d.Device)
			if (asked != "") != tt.asked || (tt.asked && !strings.Contains(asked, "/home/u/Downloads, always")) {
				t.Fatalf("asked %q, want asked=%v", asked, tt.asked)
			}
			if got := rec.decisions(); len(got) != tt.want {
				t.Fatalf("decisions %+v, want %d", got, tt.want)
			}
		})
	}
}

// TestDialogCode: the window shows the code of each allow button's
// choice as the target and duration menus name it, kept current as they
// change; the command it shows and copies carries no code, and Copy
// copies the once code that command asks for.
func TestDialogCode(t *testing.T) {
	codes := testCodes("K7MP")
	code := func(c wire.Choice) string { return wire.CodeFor(codes, c) }
	file, folder := guard.KindFile, guard.KindFolder
	tests := []struct {
		name    string
		pick    func(d *Dialog)
		shown   []string // codes shown
		command string
	}{
		{"as it opens", func(*Dialog) {},
			[]string{code(wire.Choice{Scope: "once", Kind: file}), code(wire.Choice{Scope: "session", Kind: file}), code(wire.Choice{Scope: "device", Kind: file})},
			"pathgrant approve r1 --scope once"},
		{"the folder, a session of an hour", func(d *Dialog) { d.Target.SetSelected(LabelFolder); d.SessionFor.SetSelected("for 1 hour") },
			[]string{code(wire.Choice{Scope: "once", Kind: folder}), code(wire.Choice{Scope: "session", Kind: folder, For: "1h"}), code(wire.Choice{Scope: "device", Kind: folder})},
			"pathgrant approve r1 --scope once --folder"},
		{"the file for 7 days", func(d *Dialog) { d.DeviceFor.SetSelected("for 7 days") },
			[]string{code(wire.Choice{Scope: "device", Kind: file, For: "168h"}), "--scope device --for 168h"},
			"pathgrant approve r1 --scope once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _, _ := newTestDialog(t, readRequest())
			clip := fyne.CurrentApp().Clipboard()
			d.SetCode(codes, clip)
			tt.pick(d)
			if !d.Code.Selectable || !d.Command.Selectable || !d.Code.Visible() || !d.CopyCommand.Visible() {
				t.Fatal("codes or command not shown selectable")
			}
			for _, w := range tt.shown {
				if !strings.Contains(d.Code.Text, w) {
					t.Errorf("codes shown %q lack %q", d.Code.Text, w)
				}
			}
			if strings.Count(d.Code.Text, "K7MP") != 3 {
				t.Errorf("codes shown %q: want one per allow button", d.Code.Text)
			}
			if shown := strings.Join(strings.Fields(strings.ReplaceAll(d.Command.Text, "\\\n", " ")), " "); shown != tt.command ||
				strings.Count(d.Command.Text, "\n") != 1 {
				t.Errorf("shown command %q, want %q on two lines", d.Command.Text, tt.command)
			}
			test.Tap(d.CopyCommand)
			if got := clip.Content(); got != tt.command || strings.Contains(got, "K7MP") {
				t.Errorf("copied command %q, want %q and no code", got, tt.command)
			}
			test.Tap(d.CopyCode)
			if got, want := clip.Content(), code(wire.Choice{Scope: "once", Kind: d.kind()}); got != want {
				t.Errorf("copied code %q, want the once code %q", got, want)
			}
			if !d.Press(fyne.KeyC) || clip.Content() != tt.command {
				t.Errorf("Alt+C copied %q, want the command", clip.Content())
			}
		})
	}
}

// TestDialogCodeFitsTheWindow: with a full id and the longest choice
// selected, in the app's theme, the codes, the command and their Copy
// buttons fit the window's width beside the details' scroll bar.
func TestDialogCodeFitsTheWindow(t *testing.T) {
	r := readRequest()
	r.ID = "0123456789abcdef0123456789abcdef"
	d, _, _ := newTestDialog(t, r)
	fyne.CurrentApp().Settings().SetTheme(theme.DefaultTheme())
	d.SetCode(testCodes("K7MP"), nil)
	d.Target.SetSelected(LabelFolder)
	d.SessionFor.SetSelected("for 15 minutes")
	d.DeviceFor.SetSelected("for 7 days")
	if w := d.Content().MinSize().Width + theme.ScrollBarSize(); w > WindowWidth {
		t.Fatalf("the dialog needs %.0f px with the scroll bar, the window is %d", w, WindowWidth)
	}
}

// TestDialogWithoutCode: a window opened with no code shows no code line
// and asks for none.
func TestDialogWithoutCode(t *testing.T) {
	d, _, _ := newTestDialog(t, readRequest())
	d.SetCode(nil, nil)
	if d.Code.Visible() || d.Command.Visible() || d.CodeEntry.Visible() {
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
