package grants

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"

	bolt "go.etcd.io/bbolt"

	"pathgrant/guard"
)

// Kind names what an audit record is about.
type Kind string

// The audit kinds. The store writes approve, expire, revoke, use,
// invalidate, foreign-device and prune itself; the daemon adds request, deny,
// conflict, forged, stale and tool through Audit.
const (
	KindRequest       Kind = "request"
	KindApprove       Kind = "approve"
	KindDeny          Kind = "deny"
	KindExpire        Kind = "expire"
	KindRevoke        Kind = "revoke"
	KindUse           Kind = "use"
	KindInvalidate    Kind = "invalidate"
	KindConflict      Kind = "conflict"
	KindForged        Kind = "forged"
	KindStale         Kind = "stale"
	KindForeignDevice Kind = "foreign-device"
	KindPrune         Kind = "prune"
	// KindTool is a call of a tool pathgrant ran itself (the tool routes
	// and the MCP bridge): the tool, the access it was allowed on, and how
	// it ended; never the file's content or the command's output.
	KindTool Kind = "tool"
	// KindRefuse is a check refused outright, never offered to the person
	// (a protected path, a tool pathgrant cannot map): identical refusals
	// of one session are one record with a count, and each session's
	// records are bounded.
	KindRefuse Kind = "refuse"
	// KindLift is a remembered denial the person lifted.
	KindLift Kind = "lift"
	// KindCode is an approval over the socket refused for its code:
	// missing, wrong, or above what the code unlocks. Most often a typo,
	// so it is not filed with forged callers.
	KindCode Kind = "code"
	// KindAfterRun is what the check after a confined command neutralised
	// in the workspace, or could not check: a failed check holds the
	// session's next command until it passes.
	KindAfterRun Kind = "after-run"
)

// kindLabels are the kinds as the person reads them (the settings window,
// `pathgrant audit`).
var kindLabels = map[Kind]string{
	KindRequest: "asked", KindApprove: "approved", KindDeny: "denied", KindExpire: "expired",
	KindRevoke: "revoked", KindUse: "used", KindInvalidate: "invalidated", KindConflict: "conflict",
	KindForged: "forged caller", KindCode: "wrong code", KindStale: "stale session", KindForeignDevice: "other device",
	KindPrune: "pruned", KindTool: "tool call", KindRefuse: "refused", KindLift: "denial lifted",
	KindAfterRun: "after-run check",
}

// Kinds lists every audit kind, in a stable order, for filters.
func Kinds() []Kind {
	return []Kind{KindRequest, KindApprove, KindDeny, KindRefuse, KindCode, KindForged, KindExpire, KindRevoke,
		KindUse, KindLift, KindInvalidate, KindConflict, KindStale, KindForeignDevice, KindPrune, KindTool, KindAfterRun}
}

// Label is k as the person reads it.
func (k Kind) Label() string {
	if l, ok := kindLabels[k]; ok {
		return l
	}
	return string(k)
}

// ParseKind accepts a kind by its name or its label ("wrong code").
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds() {
		if s == string(k) || strings.EqualFold(s, k.Label()) {
			return k, nil
		}
	}
	names := make([]string, 0, len(kindLabels))
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	return "", fmt.Errorf("unknown audit kind %q (want one of %s)", s, strings.Join(names, ", "))
}

// maxReason bounds the free-text reason so that a record cannot carry a
// payload (a file, a command's output) by accident.
const maxReason = 200

// Record is one audit log entry: who asked for what, and what happened.
// It deliberately has no field for file contents, command text or output,
// environment values or tokens, so none can ever be written to the log.
type Record struct {
	Seq       uint64    `json:"seq"`
	Time      time.Time `json:"time"`
	Kind      Kind      `json:"kind"`
	Session   string    `json:"session,omitempty"`
	Workflow  string    `json:"workflow,omitempty"`
	Agent     string    `json:"agent,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	RequestID string    `json:"request_id,omitempty"`
	Op        guard.Op  `json:"op,omitempty"`
	Path      string    `json:"path,omitempty"`
	Scope     Scope     `json:"scope,omitempty"`
	Grant     string    `json:"grant,omitempty"`
	Reason    string    `json:"reason,omitempty"`
}

// grantRecord describes a state change of g.
func grantRecord(kind Kind, g Grant, reason string) Record {
	return Record{
		Kind: kind, Session: g.Session, Workflow: g.Workflow, Agent: g.Agent,
		Op: g.Op, Path: g.Path, Scope: g.Scope, Grant: g.ID, Reason: reason,
	}
}

// Audit appends rec to the log; the daemon calls it for requests, denials,
// conflicts, forged and stale sessions. Seq is assigned; Time defaults to
// now; Reason is cut to one short line.
func (s *Store) Audit(rec Record) error {
	if _, ok := kindLabels[rec.Kind]; !ok {
		return fmt.Errorf("audit: %w: unknown kind %q", ErrInvalid, rec.Kind)
	}
	if err := s.update(func(tx *bolt.Tx) error { return s.appendAudit(tx, rec) }); err != nil {
		return fmt.Errorf("audit %s: %w", rec.Kind, err)
	}
	return nil
}

// appendAudit writes rec inside tx, keyed by the bucket's next sequence
// (big-endian, so keys sort in append order).
func (s *Store) appendAudit(tx *bolt.Tx, rec Record) error {
	b := tx.Bucket(bucketAudit)
	seq, err := b.NextSequence()
	if err != nil {
		return fmt.Errorf("audit sequence: %w", err)
	}
	rec.Seq = seq
	if rec.Time.IsZero() {
		rec.Time = s.now()
	}
	rec.Reason = clean(rec.Reason, maxReason)
	// What a caller names (a tool, its call id) is bounded too, so that no
	// record, however many a session provokes, carries a payload.
	rec.Tool, rec.RequestID = clean(rec.Tool, maxName), clean(rec.RequestID, maxName)
	rec.Agent, rec.Workflow = clean(rec.Agent, maxName), clean(rec.Workflow, maxName)
	rec.Path = clean(rec.Path, maxPath)
	v, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode audit record: %w", err)
	}
	return b.Put(be64(seq), v)
}

// The bounds of a record's other free-text fields, in runes.
const (
	maxName = 128
	maxPath = 4096
)

// clean turns control characters into spaces and caps the length at n
// runes.
func clean(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

// AuditFilter selects audit records. The zero value selects all.
type AuditFilter struct {
	Since   time.Time // records at or after this time
	Session string    // records of this session
	Kind    Kind      // records of this kind
}

func (f AuditFilter) match(r Record) bool {
	return !r.Time.Before(f.Since) &&
		(f.Session == "" || r.Session == f.Session) &&
		(f.Kind == "" || r.Kind == f.Kind)
}

// EachAudit calls fn for every record f selects, oldest first, and stops
// at fn's first error.
func (s *Store) EachAudit(f AuditFilter, fn func(Record) error) error {
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketAudit).ForEach(func(k, v []byte) error {
			var r Record
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("decode audit record %d: %w", binary.BigEndian.Uint64(k), err)
			}
			if !f.match(r) {
				return nil
			}
			return fn(r)
		})
	})
	if err != nil {
		return fmt.Errorf("read audit log: %w", err)
	}
	return nil
}

// AuditRecords returns the records f selects, oldest first.
func (s *Store) AuditRecords(f AuditFilter) ([]Record, error) {
	var out []Record
	err := s.EachAudit(f, func(r Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// AuditRecord returns the audit record numbered seq (Record.Seq), so the
// person can act on one row of the log.
func (s *Store) AuditRecord(seq uint64) (Record, error) {
	var r Record
	err := s.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketAudit).Get(be64(seq))
		if v == nil {
			return ErrNotFound
		}
		return json.Unmarshal(v, &r)
	})
	if err != nil {
		return Record{}, fmt.Errorf("audit record %d: %w", seq, err)
	}
	return r, nil
}
