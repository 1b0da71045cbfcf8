package wire

import (
	"encoding/json"
)

// CapEnv carries the exec capability to the front end
// (`pathgrant-confine exec`) of a hook's rewritten command.
const CapEnv = "PATHGRANT_CAP"

// ExecRequest is what the front end sends PathExec: the command, where
// its program is, which binary the front end is (the inner step is that
// binary or the one next to it), and its environment (where the desktop,
// the tmp dir and the ssh agent are).
type ExecRequest struct {
	Path      string   `json:"path"`
	Argv      []string `json:"argv"`
	Exe       string   `json:"exe"`
	Env       []string `json:"env"`
	Terminals []string `json:"terminals,omitempty"`
}

// Prepared is the daemon's answer: how to run the command.
//
//   - Unconfined non-empty: the device policy turns confinement off; the
//     command runs as it is, and Unconfined says so.
//   - Bwrap non-empty: bubblewrap runs Args, then "--", then Inner with the
//     descriptor of a memory file holding Job appended (the inner step
//     restricts itself with Landlock and execs the command).
//   - Bwrap empty: no bubblewrap on this machine; the front end runs
//     Inner with the job's descriptor appended (Landlock alone).
//   - Seatbelt non-empty (LevelSeatbelt, macOS): the front end runs
//     SandboxExec with "-p", Seatbelt, "--", the program's path and the
//     command's arguments; there is no inner step and no job.
//
// The command's environment is the front end's (the confined environment
// with TmpDir and SSHAgent).
type Prepared struct {
	Session    string          `json:"session"`
	Level      Level           `json:"level"`
	Unconfined string          `json:"unconfined,omitempty"`
	Bwrap      string          `json:"bwrap,omitempty"`
	Args       []string        `json:"args,omitempty"`
	Inner      []string        `json:"inner,omitempty"`
	Job        json.RawMessage `json:"job,omitempty"`
	TmpDir     string          `json:"tmpdir,omitempty"`
	SSHAgent   bool            `json:"ssh_agent,omitempty"`
	// Workspace are the session's workspace roots: where the daemon's
	// check after the command looks.
	Workspace []string `json:"workspace,omitempty"`
	// Placeholders are the empty places the view holds for absent
	// protected members, removed again after the command; AllowProtected
	// the members the device policy opens (afterrun.Check leaves them).
	Placeholders   []string `json:"placeholders,omitempty"`
	AllowProtected []string `json:"allow_protected,omitempty"`
	// Ticket is presented (HeaderCapability) to PathReport after the
	// command failed.
	Ticket string `json:"ticket,omitempty"`
	// Hold, when set, has the inner step send the command's opens to a
	// supervisor that holds a read under an approvable root for the
	// person (package sandbox/supervise).
	Hold *Hold `json:"hold,omitempty"`
	// Seatbelt is the command's Seatbelt profile (SBPL) at LevelSeatbelt.
	Seatbelt string `json:"seatbelt,omitempty"`
	// Net, when set, is the command's network namespace's way out: the
	// inner step listens on its own loopback at Net.Port and hands the
	// listener to the daemon's proxy (PathNet); nil shares the machine's
	// network (the device policy's mode "host", or no namespace here).
	Net *Net `json:"net,omitempty"`
}

// Net is how a confined command in a network namespace of its own goes
// out (Prepared.Net): through pathgrant's proxy, reached at Port on the
// namespace's own loopback, whose listener the front end hands to the
// daemon presenting Ticket.
type Net struct {
	Port   int    `json:"port"`
	Ticket string `json:"ticket,omitempty"`
}

// SandboxExec is macOS's own runner of a command under a Seatbelt
// profile: the probe looks for it and the front end runs it, at this
// path only (never one found on PATH).
const SandboxExec = "/usr/bin/sandbox-exec"

// Report is PathReport's request (the stderr lines of the failed command
// that name a refusal) and its answer (what to tell the agent, one line
// per refused path).
type Report struct {
	Lines []string `json:"lines"`
}

// Hold is how a prepared command's opens are held (Prepared.Hold): the
// approvable roots, as the view shows them (names and metadata, never
// contents), whose read-only opens the supervisor holds for the person,
// and the hold ticket its front end presents to PathHold.
type Hold struct {
	Roots  []string `json:"roots"`
	Ticket string   `json:"ticket,omitempty"`
	// Granted are the read grants under the roots that the command's
	// Landlock rules already hold (the session's, and a once grant its
	// check used): their opens go straight to the kernel, never asking
	// again.
	Granted []Scope `json:"granted,omitempty"`
}

// HoldRequest is PathHold's request: a confined command's program is
// held in the open of Path (absolute, clean, under a hold root), and asks
// to read it.
type HoldRequest struct {
	Path    string `json:"path"`
	Program string `json:"program,omitempty"`
	// By is what holds the open: HeldByFS or HeldBySeccomp.
	By string `json:"by,omitempty"`
}

// What holds a confined command's open for the person: pathgrant's file
// system serving the approvable roots (package sandbox/heldfs), or the
// seccomp supervisor, the fallback where that cannot be had.
const (
	HeldByFS      = "file system"
	HeldBySeccomp = "seccomp"
)

// HoldAnswer is whether the held open may have its file: Allowed with the
// Path the decision covers (the supervisor opens exactly that), or Line,
// the one refusal line the command's stderr gets.
type HoldAnswer struct {
	Allowed bool   `json:"allowed"`
	Path    string `json:"path,omitempty"`
	Request string `json:"request,omitempty"`
	Line    string `json:"line,omitempty"`
}
