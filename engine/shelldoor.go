package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"pathgrant/guard"
	"pathgrant/sandbox"
	"pathgrant/sandbox/frontend"
	"pathgrant/sandbox/launch"
	"pathgrant/tools"
	"pathgrant/wire"
)

// toolShell is the confiner of one session's execute_shell_command, on
// the tool routes, through `pathgrant mcp` and in process (RunTool): the
// same door as a hook's rewritten command. The Launcher prepares the
// sandbox from the session's policy, the daemon runs it as its own child
// with the one front end (frontend.Run: bubblewrap, the job at descriptor
// 3, the whole sandbox killed on timeout), runs the check it owes after
// the command (afterrun.go), and the refused paths of a command that failed are explained in process as POST /v1/exec/report
// explains them.
type toolShell struct {
	s    *Engine
	sess *session
}

// shellPath is the shell execute_shell_command runs its text with.
const shellPath = "/bin/bash"

func (t toolShell) Run(ctx context.Context, c tools.Command) (int, error) {
	s := t.s
	if s.cfg.Launcher == nil {
		return -1, errors.New("this daemon does not prepare sandboxes")
	}
	if aerr := s.checkBefore(t.sess.ID); aerr != nil {
		return -1, aerr
	}
	pol, aerr := s.sessionPolicy(t.sess)
	if aerr != nil {
		return -1, aerr
	}
	for _, g := range c.Confinement.Grants { // a once grant the check used is spent by now
		if !slices.Contains(pol.Grants, g) {
			pol.Used = append(pol.Used, g)
		}
	}
	argv := []string{"bash", "-c", c.Text}
	l, check, err := s.launchOwed(t.sess.ID, pol, wire.ExecRequest{Path: shellPath, Argv: argv, Env: c.Env})
	if err != nil {
		return -1, err
	}
	by := raiser(fmt.Sprintf("tool command %d", s.toolCommands.Add(1)))
	clock := toolCallClock(ctx, s.now())
	if aerr := s.serve(t.sess, l, s.self, nil, by, clock); aerr != nil {
		s.finishCheck(check, false) // nothing ran
		return -1, aerr
	}
	netEnd, stopNet, err := s.toolNet(t.sess, check, by, l.Prepared)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pathgrant exec: no way out of the command's network namespace (%v): it reaches its own loopback only\n", err)
	}
	res := frontend.Run(ctx, frontend.Child{Prepared: l.Prepared, Path: shellPath, Argv: argv, Env: c.Env, Dir: c.Dir,
		Stdout: c.Stdout, Stderr: c.Stderr, OwnGroup: true, Started: s.MarkToolProcess(t.sess.ID), Hold: s.holdAsker(t.sess, l.Prepared, by, clock),
		Net: netEnd})
	if stopNet != nil {
		stopNet()
	}
	said, refused := s.unserve(servedToken(l))
	for _, line := range slices.Concat(res.Notes(), said, s.finishCheck(check, res.Killed)) {
		fmt.Fprintln(c.Stderr, line)
	}
	switch {
	case res.Err != nil:
		return -1, res.Err
	case res.Succeeded():
		return 0, nil
	}
	if unsaid := launch.Unsaid(res.Refused, refused); len(unsaid) > 0 && !res.Killed {
		for _, line := range s.explainRefusals(ctx, t.sess, unsaid, l.Outside) {
			fmt.Fprintln(c.Stderr, line)
		}
	}
	if res.Status.Signaled() {
		return -1, nil
	}
	return res.Status.ExitStatus(), nil
}

// toolConfiner is what execute_shell_command of sess runs under: always
// the one door; without a Launcher shell commands are refused, never run
// unconfined.
func (s *Engine) toolConfiner(sess *session) tools.Confiner { return toolShell{s: s, sess: sess} }

var _ tools.Confiner = toolShell{}

// usedScopes are the scopes of the grants ids (a check's) as the store
// has them.
func (s *Engine) usedScopes(ids []string) []guard.Scope {
	var used []guard.Scope
	for _, id := range ids {
		if g, err := s.cfg.Store.Get(id); err == nil {
			used = append(used, guard.Scope{Op: g.Op, Path: g.Path, Kind: g.Kind})
		}
	}
	return used
}

// Door is one way an agent's shell command reaches the one door (the
// Launcher's preparation and frontend.Run). Every door is walked by the
// same escapes and the same real work (cli's TestDoorWalk); a door added
// here without a way to walk it fails that test.
type Door string

// The doors.
const (
	DoorHook        Door = "hook rewrite"             // POST /v1/exec, a hook's capability (pathgrant-confine exec)
	DoorExecSession Door = "pathgrant exec --session" // POST /v1/exec, the capability of exec's pre-flight check
	DoorToolRoute   Door = "tool route"               // POST /v1/tools/{tool}
	DoorSessionTool Door = "session tool route"       // POST /s/{session}/v1/tools/{tool}
	DoorMCP         Door = "pathgrant mcp"            // the MCP bridge on stdio, forwarding to the tool routes
	DoorInProcess   Door = "in process"               // Engine.RunTool, the app's in-process API
)

// Doors lists all of them.
func Doors() []Door {
	return []Door{DoorHook, DoorExecSession, DoorToolRoute, DoorSessionTool, DoorMCP, DoorInProcess}
}

// launchOwed prepares the sandbox of one of the daemon's own tool
// commands and owes its check, under views' read lock
// (placeholders.go). No Exe: the inner step is the daemon's own
// pathgrant binary's.
func (s *Engine) launchOwed(session string, pol wire.Policy, req wire.ExecRequest) (sandbox.Launch, string, error) {
	s.views.RLock()
	defer s.views.RUnlock()
	l, err := s.cfg.Launcher.Launch(pol, s.deviceFile(), req)
	if err != nil {
		return sandbox.Launch{}, "", fmt.Errorf("prepare the sandbox: %w", err)
	}
	l.Prepared.Session = session
	check, aerr := s.planCheck(session, l.Prepared, s.self, "")
	if aerr != nil {
		return sandbox.Launch{}, "", aerr
	}
	return l, check, nil
}
