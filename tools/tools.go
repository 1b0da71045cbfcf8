package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"pathgrant/guard"
	"pathgrant/strictjson"
)

// The tools, by the names agents call them.
const (
	ExecuteShellCommand = "execute_shell_command"
	ReadFile            = "read_file"
	WriteFile           = "write_file"
	ListDirectory       = "list_directory"
)

// Names lists every tool in a stable order.
var Names = []string{ExecuteShellCommand, ReadFile, WriteFile, ListDirectory}

// RetryHint is what a denied call that waits for the person's approval
// tells the agent: the call is not replayed, so the agent calls again,
// once, after the person approved it where they were asked.
const RetryHint = "the person approves it in pathgrant's window (or with `pathgrant approve` in a terminal); call the tool again once they have"

// ErrBadCall wraps every error caused by the call itself: an unknown tool,
// arguments that do not parse or are missing, a path the guard cannot
// resolve. The caller answers it as the caller's mistake, never as allow.
var ErrBadCall = errors.New("bad tool call")

// Limits bound what one call may produce and how long it may run.
type Limits struct {
	MaxOutput      int           // bytes of file content or of each output stream (default 1 MiB)
	MaxEntries     int           // directory entries listed (default 10000)
	DefaultTimeout time.Duration // shell commands without timeout_ms (default 2 min)
	MaxTimeout     time.Duration // the longest timeout_ms honoured (default 10 min)
}

func (l Limits) withDefaults() Limits {
	if l.MaxOutput <= 0 {
		l.MaxOutput = 1 << 20
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = 10000
	}
	if l.DefaultTimeout <= 0 {
		l.DefaultTimeout = 2 * time.Minute
	}
	if l.MaxTimeout <= 0 {
		l.MaxTimeout = 10 * time.Minute
	}
	return l
}

// Session is the one context a tool call runs under, built once by the
// caller from the session it resolved. Every field comes from that one
// session: the id that names grants and approvals, the policy the guard
// judges with, the cwd and environment a command runs in, and the owner
// of the notifications an approval raises.
type Session struct {
	ID       string
	Workflow string
	Agent    string
	Cwd      string            // canonical working directory
	Env      map[string]string // the session's shell environment (never logged)
	Home     string            // for `~` and the commands' HOME

	// Policy is the session's canonical roots (blocked-write paths
	// included) with the device policy, and Compiled its compiled form.
	Policy   guard.Policy
	Compiled *guard.Compiled
	// Grants is the guard's view of the session's grants; Usable lists the
	// live read grants a confined command may use.
	Grants guard.Grants
	Usable []guard.Scope

	// Owner is the session whose approval requests and notifications a
	// denial of this call raises: always ID, kept apart so callers can
	// assert it.
	Owner string

	Confiner Confiner    // runs shell commands confined; nil refuses them
	Audit    func(Event) // records each call; nil records nothing
	Limits   Limits
}

// check refuses a Session that could act under an empty or mixed
// identity: no id, no compiled policy, or an owner other than itself.
func (s *Session) check() error {
	switch {
	case s == nil || s.ID == "":
		return errors.New("tool call without a session")
	case s.Compiled == nil:
		return fmt.Errorf("session %s has no policy", s.ID)
	case s.Owner != s.ID:
		return fmt.Errorf("session %s: notification owner %q is another session", s.ID, s.Owner)
	}
	return nil
}

// Call is one tool call as the agent made it.
type Call struct {
	Tool      string
	Args      json.RawMessage
	RequestID string
}

// Event is what the audit hook gets for each call: who, what, the verdict
// and, for a call that ran, whether it failed. It holds no file content,
// command output or environment.
type Event struct {
	Session   string
	Workflow  string
	Agent     string
	Tool      string
	RequestID string
	Op        guard.Op
	Path      string
	Command   string
	Decision  guard.Verdict
	Eligible  bool
	Reason    string
	Err       string
}

// Result is a call's structured answer. A denial carries the decision,
// the reason, whether it can be approved, the scope an approval would
// grant, and (filled by the caller once it raised the approval request)
// the pending id and the retry hint. An allowed call carries its output.
type Result struct {
	Tool      string        `json:"tool"`
	Session   string        `json:"session"`
	Decision  guard.Verdict `json:"decision"`
	Reason    string        `json:"reason,omitempty"`
	Eligible  bool          `json:"eligible"`
	Suggested *guard.Scope  `json:"suggested_scope,omitempty"`
	PendingID string        `json:"pending_id,omitempty"`
	Retry     string        `json:"retry,omitempty"`

	// Error says an allowed call failed while running (missing file,
	// not a directory, a symlink swapped in since the check).
	Error string `json:"error,omitempty"`

	Path      string  `json:"path,omitempty"`      // canonical path read, written or listed
	Content   *string `json:"content,omitempty"`   // read_file
	Bytes     int     `json:"bytes,omitempty"`     // read_file: bytes returned; write_file: bytes written
	Entries   []Entry `json:"entries,omitempty"`   // list_directory
	Truncated bool    `json:"truncated,omitempty"` // content, entries or output were cut at the limit

	Stdout   *string `json:"stdout,omitempty"` // execute_shell_command
	Stderr   *string `json:"stderr,omitempty"`
	ExitCode *int    `json:"exit_code,omitempty"`
	TimedOut bool    `json:"timed_out,omitempty"`
}

// Failed reports whether the call did not do what was asked: denied, or
// allowed and then failed.
func (r Result) Failed() bool {
	return r.Decision != guard.Allow || r.Error != "" || r.TimedOut || (r.ExitCode != nil && *r.ExitCode != 0)
}

// Entry is one directory entry.
type Entry struct {
	Name string `json:"name"`
	Type string `json:"type"` // file, dir, symlink, other
	Size int64  `json:"size"`
}

// Prepared is a validated call under its session: the guard request it
// needs and how it runs once allowed.
type Prepared struct {
	sess *Session
	call Call
	req  guard.Request
	run  func(ctx context.Context, d guard.Decision) Result
}

// Prepare validates the call's arguments for the session.
func (s *Session) Prepare(call Call) (*Prepared, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	s.Limits = s.Limits.withDefaults()
	p := &Prepared{sess: s, call: call}
	var err error
	switch call.Tool {
	case ReadFile:
		err = p.prepareRead()
	case WriteFile:
		err = p.prepareWrite()
	case ListDirectory:
		err = p.prepareList()
	case ExecuteShellCommand:
		err = p.prepareShell()
	default:
		err = fmt.Errorf("%w: unknown tool %q (want %v)", ErrBadCall, call.Tool, Names)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Request is what the guard is asked for this call.
func (p *Prepared) Request() guard.Request { return p.req }

// Evaluate asks the guard about the call under the session's policy and
// grants. It consumes nothing: a caller that records grant uses does so
// on the Accesses of an allow.
func (p *Prepared) Evaluate() (guard.Decision, error) {
	d, err := guard.Evaluate(p.sess.Compiled, p.sess.Grants, p.req)
	if err != nil {
		return d, fmt.Errorf("%w: %w", ErrBadCall, err)
	}
	return d, nil
}

// Execute runs the call if d allows it, and otherwise returns the
// denial. d must be the guard's decision on Request under this session.
func (p *Prepared) Execute(ctx context.Context, d guard.Decision) Result {
	if d.Verdict != guard.Allow {
		return p.Denied(d)
	}
	res := p.run(ctx, d)
	res.Tool, res.Session, res.Decision = p.call.Tool, p.sess.ID, guard.Allow
	if res.Reason == "" {
		res.Reason = d.Reason
	}
	p.audit(d, res.Error)
	return res
}

// Denied is the structured denial for d. The caller adds the pending id
// with Pending once it raised an approval request.
func (p *Prepared) Denied(d guard.Decision) Result {
	res := Result{Tool: p.call.Tool, Session: p.sess.ID, Decision: guard.Deny, Reason: d.Reason,
		Eligible: d.Eligible, Suggested: d.Suggested}
	p.audit(d, "")
	return res
}

// Pending marks a denial as waiting for the user's approval of request id.
func (r Result) Pending(id string) Result {
	r.PendingID, r.Retry = id, RetryHint
	return r
}

func (p *Prepared) audit(d guard.Decision, errText string) {
	if p.sess.Audit == nil {
		return
	}
	ev := Event{Session: p.sess.ID, Workflow: p.sess.Workflow, Agent: p.sess.Agent, Tool: p.call.Tool,
		RequestID: p.call.RequestID, Op: p.req.Op, Path: p.req.Path, Command: p.req.Shell,
		Decision: d.Verdict, Eligible: d.Eligible, Reason: d.Reason, Err: errText}
	for _, a := range d.Accesses {
		if !a.Allowed || d.Verdict == guard.Allow {
			ev.Op, ev.Path = a.Op, a.Path
			break
		}
	}
	p.sess.Audit(ev)
}

// Run checks and runs one call with no approval step: an eligible denial
// is returned as it is. The daemon uses Prepare, Evaluate and Execute
// instead, so it can raise the approval in between.
func (s *Session) Run(ctx context.Context, call Call) (Result, error) {
	p, err := s.Prepare(call)
	if err != nil {
		return Result{}, err
	}
	d, err := p.Evaluate()
	if err != nil {
		return Result{}, err
	}
	return p.Execute(ctx, d), nil
}

// decodeArgs reads a tool's arguments strictly (strictjson): an unknown
// field, a field named twice in any case, or trailing data is an error,
// so a misspelt argument is never ignored and no argument is read two
// ways.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := strictjson.Decode(raw, v); err != nil {
		return fmt.Errorf("%w: arguments: %v", ErrBadCall, err)
	}
	return nil
}

// allowedPath returns the canonical path the guard allowed for op: the
// path the call will open, and nothing else.
func allowedPath(d guard.Decision, op guard.Op) (string, error) {
	for _, a := range d.Accesses {
		if a.Op == op && a.Allowed {
			return a.Path, nil
		}
	}
	return "", fmt.Errorf("the guard's decision names no allowed %s", op)
}
