package tray

import (
	"encoding/json"
	"io"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
)

func (s *Settings) export() {
	dialog.ShowFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		s.act(func() error { defer w.Close(); return s.writeAudit(w) })
	}, s.Win)
}

// writeAudit writes the records the filters and the search show, oldest
// first (the backend's order), as JSON lines.
func (s *Settings) writeAudit(w io.Writer) error {
	recs, err := s.backend.Audit(s.auditFilter())
	if err != nil {
		return err
	}
	s.mu.Lock()
	q := s.filter.auditQuery
	s.mu.Unlock()
	recs = search(recs, s.audit.cols, q)
	enc := json.NewEncoder(w)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}
