package ipc

import "pathgrant/engine"

// toolSources are where a tool call may name its session besides the URL:
// the header, the body, the client's PATHGRANT_SESSION, or (agent_process)
// the agent process the caller runs under. A client's own session id is
// not one: only a check can bind it.
const toolSources = engine.SrcHeader | engine.SrcBody | engine.SrcEnv | engine.SrcAgent

func (r *toolBody) sessionIDs() (body, env, client string) {
	return r.SessionID, r.EnvSession, ""
}

func (r *toolBody) agentProcess() bool { return r.AgentProcess }

func newToolBody() sessionBody { return &toolBody{} }

// toolRoute declares a tool route: withBody with room for a body of up
// to maxToolBody, since write_file carries the file's content.
func toolRoute(pattern string, sources engine.Source, act sessionHandler) route {
	rt := withBody(pattern, sources, newToolBody, act)
	rt.limit = maxToolBody
	return rt
}
