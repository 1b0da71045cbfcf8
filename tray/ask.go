package tray

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"pathgrant/grants"
	"pathgrant/wire"
)

// AskedNotice is the status line once the daemon raised the person's own
// request: nothing is granted yet, the inbox decides it.
const AskedNotice = "Asked: decide it in pathgrant's approval window, with the usual choices."

// EditNote says what Edit… does with the grant it started from: the new
// scope is a new request, and the old grant stays until revoked, so that
// an edit never ends a grant before its replacement is approved.
const EditNote = "The changed scope is asked as a new request in the approval window. " +
	"The current grant stays until you revoke it."

// NewGrantNote says what New grant… does.
const NewGrantNote = "pathgrant asks for this read in the approval window, where you choose how long it lasts. " +
	"Only reads under the folders you may approve are offered."

// canAsk reports whether the backend can raise the person's own requests
// (the app's link); `pathgrant settings` over the shared socket cannot,
// and offers no Allow…, New grant… or Edit….
func (s *Settings) canAsk() bool {
	_, refuses := s.backend.(refusesAsking)
	return !refuses
}

// allowFromAudit is the audit's Allow…: the daemon raises an approval
// request for the refused read, shown in the inbox when it arrives.
func (s *Settings) allowFromAudit(r grants.Record) {
	s.ask(func() (wire.Request, error) { return s.backend.AskFromAudit(strconv.FormatUint(r.Seq, 10)) })
}

// ask runs a backend call that raises a request, off the UI goroutine,
// and says what came of it.
func (s *Settings) ask(call func() (wire.Request, error)) {
	s.background(func() {
		_, err := call()
		fyne.Do(func() {
			if err != nil {
				s.status.SetText("Not asked: " + err.Error())
				return
			}
			s.status.SetText(AskedNotice)
		})
	})
}

// askDialog asks for a read of a path the person types or picks: New
// grant… (path "") or Edit… of a grant (its path). UI goroutine only.
func (s *Settings) askDialog(title, path string) {
	entry := widget.NewEntry()
	entry.SetText(s.tilde(path))
	entry.SetPlaceHolder("~/Documents/spec.pdf or a folder")
	note := NewGrantNote
	if title == TitleEditGrant {
		note = EditNote
	}
	help := widget.NewLabel(note)
	help.Wrapping = fyne.TextWrapWord
	pick := widget.NewButton("Choose file…", func() {
		dialog.ShowFileOpen(func(r fyne.URIReadCloser, err error) {
			if err == nil && r != nil {
				entry.SetText(s.tilde(r.URI().Path()))
				_ = r.Close()
			}
		}, s.Win)
	})
	items := []*widget.FormItem{widget.NewFormItem("Path", entry), widget.NewFormItem("", pick), widget.NewFormItem("", help)}
	d := dialog.NewForm(title, LabelAsk, "Cancel", items, func(ok bool) {
		if ok {
			s.askFor(entry.Text)
		}
	}, s.Win)
	d.Resize(detailsSize)
	s.asking = d
	d.Show()
}

// askFor asks for a read of path as the person typed it.
func (s *Settings) askFor(typed string) {
	p, err := s.expandPath(typed)
	if err != nil {
		s.status.SetText("Not asked: " + err.Error())
		return
	}
	s.ask(func() (wire.Request, error) { return s.backend.AskForPath(wire.OpRead, p) })
}

// expandPath reads a path as the person typed it: "~" is the home
// folder; anything else must be absolute.
func (s *Settings) expandPath(p string) (string, error) {
	p = strings.TrimSpace(p)
	switch {
	case p == "":
		return "", errors.New("no path given")
	case p == "~":
		p = s.book.home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(s.book.home, p[2:])
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q is not a full path: start it with / or ~/", p)
	}
	return filepath.Clean(p), nil
}
