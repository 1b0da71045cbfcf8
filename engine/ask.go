package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// AskFromAudit is the audit's "Allow…": the person, in the app's own
// window, asks to be offered the access an audit record refused or
// denied. It raises a normal approval request in the inbox, where the
// person decides with the same choices, durations and folder
// confirmation, for the record's session while it is live, else for this
// device only. Nothing is granted here: an agent never reaches this (it is
// not on the shared socket), and only the person's decision grants.
// recordID is the record's number (grants.Record.Seq).
func (s *Engine) AskFromAudit(recordID string) (wire.Request, *Error) {
	seq, err := strconv.ParseUint(strings.TrimSpace(recordID), 10, 64)
	if err != nil {
		return wire.Request{}, errorf(BadRequest, "", "audit record %q: want its number", recordID)
	}
	rec, err := s.cfg.Store.AuditRecord(seq)
	switch {
	case errors.Is(err, grants.ErrNotFound):
		return wire.Request{}, errorf(NotFound, "", "no audit record %d", seq)
	case err != nil:
		return wire.Request{}, errorf(Internal, "", "%v", err)
	case rec.Kind != grants.KindRefuse && rec.Kind != grants.KindDeny:
		return wire.Request{}, errorf(BadRequest, "", "audit record %d is %q: only a refused or denied access can be allowed from the log", seq, rec.Kind.Label())
	case rec.Op == "" || rec.Path == "":
		return wire.Request{}, errorf(BadRequest, "", "audit record %d names no file: there is nothing to allow", seq)
	}
	sess := s.sessions.get(rec.Session)
	if sess != nil && !s.chainLive(sess) {
		sess = nil
	}
	return s.ask(sess, rec.Op, rec.Path, wire.AskedAudit, rec)
}

// AskForPath is settings' "New grant…": the person asks to be offered op
// on path for this device (no session), in the inbox, as AskFromAudit
// does. path may name a file or a folder (offered as that folder).
func (s *Engine) AskForPath(op wire.Op, path string) (wire.Request, *Error) {
	if !filepath.IsAbs(path) {
		return wire.Request{}, errorf(BadRequest, "", "path %q is not absolute", path)
	}
	canon, err := guard.Canonicalizer{Home: s.cfg.Home}.Canonical(path, "/", true)
	if err != nil {
		return wire.Request{}, errorf(BadRequest, "", "path %s: %v", path, err)
	}
	return s.ask(nil, op, canon, wire.AskedSettings, grants.Record{})
}

// ask raises the person's own request for op on path: for sess, or for
// this device when sess is nil. It refuses what may never be granted (a
// write, a never-allowed path) and what the person denied on this device
// (lifting that comes first); an identical request already pending is
// the one returned.
func (s *Engine) ask(sess *session, op wire.Op, path, from string, rec grants.Record) (wire.Request, *Error) {
	if op != guard.OpRead {
		return wire.Request{}, errorf(Forbidden, "", "%s %s: only a read can be allowed; writing, moving or deleting outside the workspace is never offered", op, path)
	}
	if den, ok := s.denials.deviceDenial(op, path); ok {
		return wire.Request{}, errorf(Conflict, "", "%s %s is denied on this device (denial %s): lift that denial first, in settings or with 'pathgrant denials lift %s'", op, path, den.ID, den.ID)
	}
	kind := guard.KindFile
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		kind = guard.KindFolder
	}
	if why := s.neverAskable(sess, path, kind == guard.KindFolder); why != "" {
		return wire.Request{}, errorf(Forbidden, "", "%s %s can never be allowed: %s", op, path, why)
	}
	r := s.askedRequest(sess, op, path, kind, from, rec)
	choices := choicesFor(r.Suggested, s.grantable(sess, r))
	if sess == nil {
		choices = deviceChoices(choices)
	}
	o, err := s.queue.submit(r, choices, time.Time{}, "")
	if err != nil {
		return wire.Request{}, errorf(TooMany, "", "%v", err)
	}
	if !o.isNew {
		return o.req, nil
	}
	s.Audit(grants.Record{Kind: grants.KindRequest, Session: r.Session, Workflow: r.Workflow, Agent: r.Agent, Tool: r.Tool,
		Op: op, Path: path, Reason: "approval asked by the person (" + from + ")"})
	s.hub.publish(wire.Event{Type: wire.EventRequestCreated, Time: s.now(), Session: r.Session, Request: &o.req})
	if s.cfg.Approver != nil {
		s.cfg.Approver.Show(o.req, o.codes)
	}
	return o.req, nil
}

// askedRequest is the request the person raises: labelled with the
// session it is for (none: this device), and with the audit record's tool
// when it comes from one.
func (s *Engine) askedRequest(sess *session, op wire.Op, path string, kind guard.GrantKind, from string, rec grants.Record) wire.Request {
	r := wire.Request{Op: op, Path: path, Requested: path, Suggested: guard.Scope{Op: op, Path: path, Kind: kind},
		Tool: rec.Tool, Asked: from, RequestContext: wire.RequestContext{Reason: askedReason(from)}}
	if sess != nil {
		r.Session, r.SessionKind, r.Workflow, r.Agent, r.SessionStarted = sess.ID, sess.Kind, sess.Workflow, sess.Agent, sess.Started
		r.SessionExpires = sess.ageCap()
		r.Cwd, r.Workspace = sess.Cwd, sess.roots.Workspace
	}
	return r
}

func askedReason(from string) string {
	if from == wire.AskedAudit {
		return "you asked to allow this from the audit log"
	}
	return "you asked to allow this from settings"
}

// deviceChoices keeps the device choices: a request for no session can
// only be allowed on this device.
func deviceChoices(cs []wire.Choice) []wire.Choice {
	var out []wire.Choice
	for _, c := range cs {
		if c.Scope == string(grants.ScopeDevice) {
			out = append(out, c)
		}
	}
	return out
}
