package prompt

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"pathgrant/guard"
	"pathgrant/wire"
)

// connectRequest is a confined command's connection waiting in
// pathgrant's proxy, as the daemon raises it (engine.ConnectTool).
func connectRequest() wire.Request {
	created := time.Now()
	dest := "registry.npmjs.org:443"
	return wire.Request{ID: "c1", Session: "0123456789abcdef", Agent: "claude", Tool: "connect (command paused)",
		Op: guard.OpConnect, Path: dest, Requested: dest, Count: 1, Created: created, Expires: created.Add(10 * time.Minute),
		Suggested: guard.Scope{Op: guard.OpConnect, Path: dest, Kind: guard.KindFile},
		RequestContext: wire.RequestContext{Cwd: "/home/u/w", Workspace: []string{"/home/u/w"},
			Reason: "connect " + dest + " is a destination no grant allows; connecting can be approved"}}
}

// shownTexts are the texts of the dialog's laid-out labels and rich
// texts (the heading), and whether each is shown.
func shownTexts(w fyne.Window) map[string]bool {
	texts := map[string]bool{}
	for _, o := range test.LaidOutObjects(w.Content()) {
		switch v := o.(type) {
		case *widget.Label:
			texts[v.Text] = v.Visible()
		case *widget.RichText:
			texts[v.String()] = v.Visible()
		}
	}
	return texts
}

// TestDialogConnect: the window says who wants to connect where, over
// what, that the command is paused in its connect, and offers a durable
// choice worded for a connection; a connection's grant names its one
// destination, so there is no file-or-folder choice.
func TestDialogConnect(t *testing.T) {
	d, _, w := newTestDialog(t, connectRequest())
	texts := shownTexts(w)
	rows := formRows(t, w)
	tests := []struct {
		name string
		ok   bool
	}{
		{"the headline", texts["Claude wants to connect to"]},
		{"the destination as the heading", texts["registry.npmjs.org:443"]},
		{"the target", texts["over the network, through pathgrant's proxy"]},
		{"the paused row", strings.Contains(strings.Join(strings.Fields(rows["Paused"]), " "),
			"it is connecting to this host. Allow, and the connection goes through (nothing runs again); deny, and it is refused.")},
		{"the reason without the destination", rows[LabelReason] == "This host is a destination no grant allows"},
		{"the tool", texts["connect (command paused)"]},
		{"the device choice worded for a connection", d.Device != nil && d.Device.Text == LabelDeviceConnect},
		{"no file-or-folder choice", !hasFormRow(w, LabelGrant) && !d.Target.Visible()},
		{"no file's folder anywhere", !texts["in ."] && !radioShown(w)},
		{"a denial on this device", d.DenyDevice != nil && d.DenyDevice.Text == LabelDenyDevice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.ok {
				t.Errorf("not so; the window shows %q, rows %q", labelTexts(w), rows)
			}
		})
	}
}

// TestDialogConnectChoices: every allow choice of a connection grants its
// one destination (guard.KindFile, the only kind a connection grant
// takes), even with the hidden folder target set.
func TestDialogConnectChoices(t *testing.T) {
	tests := []struct {
		name  string
		click func(*Dialog)
		want  wire.Decision
	}{
		{"allow once", func(d *Dialog) { test.Tap(d.Once) }, wire.Decision{Scope: "once", Kind: guard.KindFile}},
		{"allow for this session", func(d *Dialog) { test.Tap(d.Session) }, wire.Decision{Scope: "session", Kind: guard.KindFile}},
		{"always on this device", func(d *Dialog) { test.Tap(d.Device) }, wire.Decision{Scope: "device", Kind: guard.KindFile}},
		{"alt+a, on this device for 8 hours", func(d *Dialog) { d.DeviceFor.SetSelected("for 8 hours"); d.Press(fyne.KeyA) },
			wire.Decision{Scope: "device", Kind: guard.KindFile, For: "8h"}},
		{"deny", func(d *Dialog) { test.Tap(d.Deny) }, wire.Decision{Scope: "deny"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, rec, _ := newTestDialog(t, connectRequest())
			d.Target.SetSelected(LabelFolder)
			d.Arm()
			tt.click(d)
			if got := rec.decisions(); len(got) != 1 || got[0] != tt.want {
				t.Fatalf("decisions %+v, want exactly %+v", got, tt.want)
			}
		})
	}
}

// labelTexts are the texts of the dialog's laid-out labels.
func labelTexts(w fyne.Window) []string {
	var out []string
	for _, o := range test.LaidOutObjects(w.Content()) {
		if l, ok := o.(*widget.Label); ok {
			out = append(out, l.Text)
		}
	}
	return out
}

// radioShown reports whether any radio group (the file-or-folder
// choice) is laid out in the dialog.
func radioShown(w fyne.Window) bool {
	for _, o := range test.LaidOutObjects(w.Content()) {
		if _, ok := o.(*widget.RadioGroup); ok && o.Visible() {
			return true
		}
	}
	return false
}

// hasFormRow reports whether the dialog's form has a row labelled label,
// whatever its widget.
func hasFormRow(w fyne.Window, label string) bool {
	for _, o := range test.LaidOutObjects(w.Content()) {
		if f, ok := o.(*widget.Form); ok {
			for _, it := range f.Items {
				if it.Text == label {
					return true
				}
			}
		}
	}
	return false
}
