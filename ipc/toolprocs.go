package ipc

import (
	"os/exec"

	"pathgrant/tools"
)

// markingConfiner starts a tool call's shell command through the
// daemon's Confiner and marks the process it started as an agent process
// of the call's session, so everything below it (it runs as the session's
// agent) is refused every person-only route and is told apart by session.
// A process that outlives its shell is still below the daemon, its child
// subreaper, and so still refused (belowDaemon), with its session unknown.
type markingConfiner struct {
	inner   tools.Confiner
	session string
	agents  *agentSet
}

func (m markingConfiner) Start(cmd *exec.Cmd, c tools.Confinement) error {
	if err := m.inner.Start(cmd, c); err != nil {
		return err
	}
	if _, p, _, err := procInfo(int32(cmd.Process.Pid)); err == nil {
		m.agents.add([]Proc{p}, m.session)
	}
	return nil
}
