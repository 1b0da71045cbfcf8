package engine

// MarkToolProcess returns what marks the sandbox process a tool call of
// session started as that session's agent process, so everything below it
// is refused every person-only route and is told apart by session. A
// process that outlives the sandbox's own is still below the daemon, its
// child subreaper, and so still refused (belowDaemon), its session then
// unknown.
func (s *Engine) MarkToolProcess(session string) func(pid int) {
	return func(pid int) {
		if _, p, _, err := ProcInfo(int32(pid)); err == nil {
			s.agents.add([]Proc{p}, session, s.rootsOfSession(session))
		}
	}
}
