package engine

// MarkToolProcess returns what marks the sandbox process a tool call of
// session started as that session's agent process, so everything below it
// is refused every person-only route and is told apart by session. A
// process that outlives the sandbox's own is still below the daemon, its
// child subreaper, and so still refused (belowDaemon), its session then
// unknown, unless the command ran at the Landlock-only level: there it
// cannot leave the process group it starts in (the tool call's own, its
// id the sandbox's pid), which is recorded as the session's (groups.go).
func (s *Engine) MarkToolProcess(session string) func(pid int) {
	return func(pid int) {
		s.agents.addGroup(int32(pid), session, s.rootsOfSession(session))
		if _, p, _, err := ProcInfo(int32(pid)); err == nil {
			s.agents.add([]Proc{p}, session, s.rootsOfSession(session))
		}
	}
}
