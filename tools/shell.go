package tools

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"pathgrant/guard"
	"pathgrant/wire"
)

type shellArgs struct {
	Command   string `json:"command"`
	Cwd       string `json:"cwd,omitempty"`
	TimeoutMS int    `json:"timeout_ms,omitempty"`
}

// Confinement is what a confined command may touch: the session's
// effective permissions at the moment it starts.
type Confinement struct {
	Session string
	Policy  guard.Policy  // canonical roots and the device's protected paths
	Grants  []guard.Scope // live grants, plus those the check itself used
}

// Command is one shell command to run confined: `bash -c Text` in Dir
// with Env, its output written to Stdout and Stderr.
type Command struct {
	Text           string
	Dir            string
	Env            []string
	Stdout, Stderr io.Writer
	Confinement    Confinement
}

// Confiner runs commands confined to a session's permissions: the
// daemon's one door (the same preparation and front end as a hook's
// rewritten command). Run must run c with the confinement in force from
// its first instruction, or not at all (an error means nothing ran), and
// kill all of it when ctx ends. Its status is the exit code, -1 for a
// command ended by a signal.
type Confiner interface {
	Run(ctx context.Context, c Command) (int, error)
}

// defaultPath is the PATH of a command whose session sets none.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

func (p *Prepared) prepareShell() error {
	var a shellArgs
	if err := decodeArgs(p.call.Args, &a); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(a.Command) == "":
		return fmt.Errorf("%w: execute_shell_command needs a command", ErrBadCall)
	case a.TimeoutMS < 0:
		return fmt.Errorf("%w: timeout_ms must not be negative", ErrBadCall)
	}
	dir, err := p.sess.commandDir(a.Cwd)
	if err != nil {
		return err
	}
	text := a.Command
	if dir != p.sess.Cwd {
		// judged where it runs, as the hooks do for a client's cwd
		text = wire.ShellIn(dir, a.Command)
	}
	p.req = guard.Request{Shell: text}
	p.run = func(ctx context.Context, d guard.Decision) Result { return p.sess.runShell(ctx, d, a, dir) }
	return nil
}

// commandDir resolves the cwd argument (default: the session's cwd).
func (s *Session) commandDir(cwd string) (string, error) {
	if cwd == "" {
		cwd = s.Cwd
	}
	dir, err := s.Compiled.Canonicalizer().Canonical(cwd, s.Cwd, true)
	if err != nil {
		return "", fmt.Errorf("%w: cwd: %w", ErrBadCall, err)
	}
	return dir, nil
}

func (s *Session) runShell(ctx context.Context, d guard.Decision, a shellArgs, dir string) Result {
	if s.Confiner == nil {
		return Result{Error: "no command sandbox is available: execute_shell_command is refused (it never runs unconfined)"}
	}
	timeout := s.Limits.DefaultTimeout
	if a.TimeoutMS > 0 {
		timeout = min(time.Duration(a.TimeoutMS)*time.Millisecond, s.Limits.MaxTimeout)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stdout, stderr := &capped{max: s.Limits.MaxOutput}, &capped{max: s.Limits.MaxOutput}
	code, err := s.Confiner.Run(ctx, Command{Text: a.Command, Dir: dir, Env: s.environ(), Stdout: stdout, Stderr: stderr,
		Confinement: s.confinement(d)})
	if err != nil && ctx.Err() == nil {
		return Result{Error: fmt.Sprintf("not run: %v", err)}
	}
	res := Result{Stdout: stdout.text(), Stderr: stderr.text(), Truncated: stdout.cut || stderr.cut}
	res.ExitCode = &code
	switch {
	case ctx.Err() != nil:
		res.TimedOut, res.Error = true, fmt.Sprintf("timed out after %v: the command was killed", timeout)
	case err != nil:
		res.Error = err.Error()
	}
	return res
}

// environ is the command's environment: a plain PATH and HOME, then the
// session's own variables. Nothing of the daemon's environment leaks in,
// and no pathgrant token is passed on.
func (s *Session) environ() []string {
	env := map[string]string{"PATH": defaultPath, "HOME": s.Home, "LANG": "C.UTF-8"}
	maps.Copy(env, s.Env)
	delete(env, "PATHGRANT_TOKEN")
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// confinement is the session's permissions plus the grants d used: a
// once grant is consumed by the check that used it, yet it was approved
// for exactly this command.
func (s *Session) confinement(d guard.Decision) Confinement {
	grants := slices.Clone(s.Usable)
	for _, a := range d.Accesses {
		if a.Grant == "" {
			continue
		}
		kind := guard.KindFile
		if a.Tree {
			kind = guard.KindFolder
		}
		if sc := (guard.Scope{Op: a.Op, Path: a.Path, Kind: kind}); !slices.Contains(grants, sc) {
			grants = append(grants, sc)
		}
	}
	return Confinement{Session: s.ID, Policy: s.Policy, Grants: grants}
}

// capped keeps the first max bytes written to it and counts the rest, so
// a command that prints without end neither blocks nor fills memory.
type capped struct {
	mu  sync.Mutex
	max int
	buf []byte
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - len(c.buf)
	if len(p) > room {
		c.buf, c.cut = append(c.buf, p[:max(room, 0)]...), true
		return len(p), nil
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

func (c *capped) text() *string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := string(c.buf)
	return &s
}
