package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"pathgrant/grants"
	"pathgrant/sandbox/afterrun"
	"pathgrant/wire"
)

// The check after a confined command is the daemon's duty, not the front
// end's: a client that ends a tool call with SIGKILL to its process
// group takes the front end down with the sandbox, and a promise must
// not live in a process the agent can kill. So the daemon records what
// the check needs when it prepares the command (owe, in the store: a
// restart loses none), runs it when the front end reports the command
// ended (the report route) or, failing that, as soon as the front end is
// gone, and holds the session's next command (and its end) until every
// earlier check is done. A check that cannot finish refuses the
// session's next command, saying why, until a retry passes.

// maxSettlePasses bounds the passes of a check whose command may have
// left processes behind (its front end was killed, or Landlock alone
// confined it): each pass looks again at what changed since the last
// began, until one finds nothing. A command still changing the workspace
// after the last pass fails the check: closed, and said.
const maxSettlePasses = 4

// owedRecord is what the store keeps of one owed check.
type owedRecord struct {
	ID      string        `json:"id"`
	Session string        `json:"session"`
	Plan    afterrun.Plan `json:"plan"`
	// Holder is the process whose exit means the command is over: the
	// front end, or the daemon itself for its own tool calls.
	Holder Proc `json:"holder"`
	// Settle: processes of the command may outlive it (no PID namespace).
	Settle bool `json:"settle,omitempty"`
	// Failed is why the last run of the check did not finish.
	Failed string `json:"failed,omitempty"`
}

// owedCheck is one check the daemon owes; mu makes its runs one at a time.
type owedCheck struct {
	mu   sync.Mutex
	rec  owedRecord
	done bool
	// began is owedChecks.mu's: a run of the check began, the command
	// is over (placeholders.go).
	began bool
	// served is the command's held-open token (served.go), unserved
	// when its holder is gone; never stored: a restarted daemon's file
	// system has no tokens.
	served string
}

// owedChecks are the daemon's owed checks by id.
type owedChecks struct {
	mu   sync.Mutex
	byID map[string]*owedCheck
}

func newOwedChecks() *owedChecks { return &owedChecks{byID: map[string]*owedCheck{}} }

func (o *owedChecks) add(c *owedCheck) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.byID[c.rec.ID] = c
}

func (o *owedChecks) get(id string) *owedCheck {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.byID[id]
}

func (o *owedChecks) drop(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.byID, id)
}

// ofSession are the session's owed checks.
func (o *owedChecks) ofSession(session string) []*owedCheck {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []*owedCheck
	for _, c := range o.byID {
		if c.rec.Session == session {
			out = append(out, c)
		}
	}
	return out
}

// owe records the check of a command about to run for session, whose
// end holder's exit marks. A record the store cannot keep refuses the
// command: a check that a restart would lose is no promise.
func (s *Engine) owe(session string, plan afterrun.Plan, holder Proc, settle bool, served string) (string, error) {
	c := &owedCheck{rec: owedRecord{ID: newID(), Session: session, Plan: plan, Holder: holder, Settle: settle}, served: served}
	if err := s.storeOwed(c.rec); err != nil {
		return "", err
	}
	s.owed.add(c)
	if holder != s.self {
		s.watchHolder(c)
	}
	return c.rec.ID, nil
}

func (s *Engine) storeOwed(rec owedRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("record the check after the command: %w", err)
	}
	return s.cfg.Store.PutAfterRun(rec.ID, data)
}

// watchHolder runs c's check as soon as its holder is gone, whether or
// not it reported: the check of a command whose front end was killed.
func (s *Engine) watchHolder(c *owedCheck) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if s.procs.wait(s.ctx, c.rec.Holder) && s.ctx.Err() == nil {
			s.unserve(c.served)
			if _, err := s.runOwed(c, true); err != nil {
				s.log.Error("check after a command whose front end is gone", "session", c.rec.Session, "err", err)
			}
		}
	}()
}

// runOwed runs c's check, unless it already ran, and forgets it once it
// passed. unreported says the command's end was not reported (its holder
// is gone): processes it left may still be writing, so the check settles.
func (s *Engine) runOwed(c *owedCheck, unreported bool) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return nil, nil
	}
	s.owed.begin(c)
	lines, err := s.check1(c.rec, unreported || c.rec.Settle)
	if err != nil {
		c.rec.Failed = err.Error()
		if serr := s.storeOwed(c.rec); serr != nil {
			s.log.Error("record a failed check", "session", c.rec.Session, "err", serr)
		}
		s.Audit(grants.Record{Kind: grants.KindAfterRun, Session: c.rec.Session, Reason: "check failed: " + oneLine(err.Error())})
		s.log.Error("the check after a command did not finish: the session's next command is refused until it does",
			"session", c.rec.Session, "err", err)
		return lines, err
	}
	c.done = true
	s.owed.drop(c.rec.ID)
	forget := func() {
		if err := s.cfg.Store.DeleteAfterRun(c.rec.ID); err != nil {
			s.log.Error("forget a check that ran", "session", c.rec.Session, "err", err)
		}
	}
	if s.ctx.Err() != nil { // stopping: Wait may be running
		forget()
		return lines, nil
	}
	s.wg.Add(1)
	go func() { // off the command's path: a record a crash leaves only has the check run again
		defer s.wg.Done()
		forget()
	}()
	return lines, nil
}

// check1 runs one check, in settling passes when settle: each later pass
// looks at what changed since the one before began.
func (s *Engine) check1(rec owedRecord, settle bool) ([]string, error) {
	plan := rec.Plan
	removed := s.releasePlaceholders(rec.ID, &plan)
	var lines []string
	for pass := 1; ; pass++ {
		next := afterrun.Begin(plan.Areas, false).Since
		r, err := afterrun.Check(plan)
		r.Findings, removed = append(removed, r.Findings...), nil
		lines = append(lines, s.sayFindings(rec.Session, r)...)
		switch {
		case err != nil:
			return lines, err
		case !settle || len(r.Findings) == 0:
			return lines, nil
		case pass == maxSettlePasses:
			return lines, fmt.Errorf("the workspace was still being changed after %d passes of the check: a process the command left is still running", pass)
		}
		plan.Since = next
	}
}

// maxFindingsSaid bounds the findings of one pass of a check that are
// audited and told one by one: a command can make a million protected
// folders, each neutralised, but not a million audit records (one store
// write each) or lines. The rest are counted in one record and line;
// each is on disk under a name ending afterrun.Quarantined.
const maxFindingsSaid = 64

// sayFindings audits r's findings (at most maxFindingsSaid one by one,
// then one record counting the rest) and returns the lines for the
// agent, bounded the same way; every failure is said.
func (s *Engine) sayFindings(session string, r afterrun.Report) []string {
	shown := r.Findings
	if len(shown) > maxFindingsSaid {
		shown = shown[:maxFindingsSaid]
	}
	lines := make([]string, 0, len(shown)+len(r.Failures)+1)
	for _, f := range shown {
		s.Audit(grants.Record{Kind: grants.KindAfterRun, Session: session, Path: f.Path, Reason: f.Action})
		lines = append(lines, f.String())
	}
	if more := len(r.Findings) - len(shown); more > 0 {
		line := fmt.Sprintf("pathgrant: and %d more neutralised in the workspace after the command (what was moved aside has a name ending %s)", more, afterrun.Quarantined)
		s.Audit(grants.Record{Kind: grants.KindAfterRun, Session: session, Reason: line})
		s.log.Warn("the check after a command neutralised more than it says one by one", "session", session, "findings", len(r.Findings))
		lines = append(lines, line)
	}
	for _, f := range r.Failures {
		lines = append(lines, f.String())
	}
	return lines
}

// settleChecks runs every owed check of the session whose command is
// over (its holder gone; the daemon's own commands are over when they
// return) and says whether any failed: the session's next command, and
// its end, wait for this. Commands still running are not waited for.
func (s *Engine) settleChecks(session string) error {
	var errs []error
	for _, c := range s.owed.ofSession(session) {
		running := c.rec.Holder == s.self || s.procs.alive(c.rec.Holder) // the daemon's own run theirs on return
		if running && c.rec.Failed == "" {
			continue
		}
		if _, err := s.runOwed(c, true); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// errCheckFailed is the one line the session's next command is refused
// with while an earlier check fails.
func errCheckFailed(err error) *Error {
	return errorf(Conflict, "", "the check after an earlier command of this session did not finish, so nothing more runs in it until it does (%s); "+
		"make the workspace readable to its owner and retry, or end the session (pathgrant doctor shows it)", oneLine(err.Error()))
}

// resumeOwed runs at start: a check the store says an earlier daemon
// owed is run now when its holder is gone, else when it goes.
func (s *Engine) resumeOwed() {
	recs, err := s.cfg.Store.AfterRuns()
	if err != nil {
		s.log.Error("read the checks owed after commands", "err", err)
		return
	}
	for id, data := range recs {
		var rec owedRecord
		if err := json.Unmarshal(data, &rec); err != nil || rec.ID != id {
			s.log.Error("a check owed after a command cannot be read: it is kept", "id", id, "err", err)
			continue
		}
		c := &owedCheck{rec: rec}
		s.owed.add(c)
		s.watchHolder(c) // the old daemon (holder of its own commands) is gone: runs at once
	}
}

// failed counts the owed checks whose last run failed.
func (o *owedChecks) failed() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, c := range o.byID {
		if c.rec.Failed != "" {
			n++
		}
	}
	return n
}

// planCheck owes the check after the prepared command p of session,
// whose end holder's exit marks (which also ends serving its held-open
// token served), and returns its id ("" when p runs unconfined or has no
// workspace: nothing to check). The plan is made now, before the command
// starts, so whatever it changes is newer.
func (s *Engine) planCheck(session string, p wire.Prepared, holder Proc, served string) (string, *Error) {
	if p.Unconfined != "" || len(p.Workspace) == 0 {
		return "", nil
	}
	plan := afterrun.Begin(p.Workspace, p.Level != wire.LevelLandlock) // Landlock alone holds nothing at the top
	plan.Placeholders, plan.Open = p.Placeholders, p.AllowProtected
	id, err := s.owe(session, plan, holder, p.Level == wire.LevelLandlock, served)
	if err != nil {
		return "", errorf(Unavailable, "", "%v: not running the command", err)
	}
	return id, nil
}

// checkBefore is what every door does before it prepares a command:
// the session's earlier checks finish first, and one that fails refuses
// the command.
func (s *Engine) checkBefore(session string) *Error {
	if err := s.settleChecks(session); err != nil {
		return errCheckFailed(err)
	}
	return nil
}

// finishCheck runs the owed check id now that its command reported its
// end (killed: by the daemon, which saw the sandbox end but not every
// process in it), and returns what to tell the agent; a failure is said
// too, and holds the session's next command.
func (s *Engine) finishCheck(id string, killed bool) []string {
	said, _ := s.netLines.take(id)
	c := s.owed.get(id)
	if c == nil {
		return said // ran already: its front end was seen gone first
	}
	lines, err := s.runOwed(c, killed)
	if err != nil {
		lines = append(lines, "pathgrant: "+errCheckFailed(err).Error())
	}
	return append(said, lines...)
}
