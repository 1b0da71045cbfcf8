package engine

import (
	"path/filepath"
	"slices"
	"strings"

	"pathgrant/sandbox/afterrun"
)

// A confined command's view holds the place of an absent protected
// member (a workspace's .mcp.json, say) with an empty read-only folder,
// which bubblewrap makes in the workspace: a placeholder, removed by the
// command's check. Another command over the same workspace may be
// running meanwhile, or just prepared, with a view that found the
// folder there and mounts it read-only as the member it stands for.
// Removing it then would not only make that command fail to start: a
// folder removed from under a mount is unmounted in every namespace, so
// a running command could then create the very member its view held.
// So the daemon removes a placeholder only when no command whose check
// has not begun has a write area holding it; otherwise the placeholder
// is handed to that command's check (in the store too), and left alone
// by this one while it is still an empty folder (afterrun.Plan.Held): a
// placeholder something replaced or filled is checked like any other
// name, whoever did it. Views are made and their checks owed under
// views' read lock, and placeholders go under its write lock: no view is
// made from a folder about to go.

// releasePlaceholders removes plan's placeholders that no other command
// may be using, hands the others over, and returns what the removal
// found; plan is left to check what remains, the kept ones pinned.
func (s *Engine) releasePlaceholders(id string, plan *afterrun.Plan) []afterrun.Finding {
	s.views.Lock()
	defer s.views.Unlock()
	gone, kept, heirs := s.owed.handOver(id, plan.Placeholders)
	for _, rec := range heirs { // a restart must not leave them in the workspace
		if err := s.storeOwed(rec); err != nil {
			s.log.Error("record a placeholder handed to a later check", "session", rec.Session, "err", err)
		}
	}
	plan.Placeholders, plan.Held = nil, kept
	return afterrun.RemovePlaceholders(gone)
}

// handOver adds each placeholder that is still one (an empty folder, no
// link) and lies in a write area of another check not yet begun (its
// command may still run, its view mounted) to that check's own, and
// returns those left to remove (or to report: no longer empty), those
// handed over, and the records of the checks that took some.
func (o *owedChecks) handOver(self string, placeholders []string) (gone, kept []string, heirs []owedRecord) {
	o.mu.Lock()
	defer o.mu.Unlock()
	took := map[*owedCheck]bool{}
	for _, p := range placeholders {
		c := o.notBegunOver(self, p)
		if c == nil || !afterrun.StillPlaceholder(p) {
			gone = append(gone, p)
			continue
		}
		c.rec.Plan.Placeholders = append(c.rec.Plan.Placeholders, p)
		kept = append(kept, p)
		took[c] = true
	}
	for c := range took {
		heirs = append(heirs, c.rec)
	}
	return gone, kept, heirs
}

// notBegunOver is a check other than self, not begun, with a write area
// holding p (o.mu held).
func (o *owedChecks) notBegunOver(self, p string) *owedCheck {
	for id, c := range o.byID {
		if id != self && !c.began && slices.ContainsFunc(c.rec.Plan.Areas, func(a string) bool { return holds(a, p) }) {
			return c
		}
	}
	return nil
}

// begin marks c's check begun: its command is over, its view gone, and
// no placeholder is handed to it any more. Until then its record's
// placeholders are written under o.mu (handOver); after, under c.mu.
func (o *owedChecks) begin(c *owedCheck) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c.began = true
}

// holds reports whether p lies inside folder area.
func holds(area, p string) bool {
	rel, err := filepath.Rel(area, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../")
}
