package ipc

import "pathgrant/wire"

// The request bodies that can name a session: read once, before the
// session resolves.

// checkBody is a check's body; toolBody a tool call's.
type checkBody struct{ wire.CheckRequest }

type toolBody struct{ wire.ToolRequest }

func (r *checkBody) sessionIDs() (body, env, client string) {
	return r.SessionID, r.EnvSession, r.ClientSession
}

func newCheckBody() sessionBody { return &checkBody{} }

func (r *toolBody) sessionIDs() (body, env, client string) {
	return r.SessionID, r.EnvSession, ""
}

func (r *toolBody) agentProcess() bool { return r.AgentProcess }

func newToolBody() sessionBody { return &toolBody{} }

// execBody, reportBody and holdBody are the exec routes' bodies; their
// session comes from the capability alone.
type execBody struct{ wire.ExecRequest }

type reportBody struct{ wire.Report }

type holdBody struct{ wire.HoldRequest }

func (*holdBody) sessionIDs() (body, env, client string) { return "", "", "" }

func newHoldBody() sessionBody { return &holdBody{} }

// netBody is PathNet's body: empty; the connection itself is what the
// route takes.
type netBody struct{}

func (*netBody) sessionIDs() (body, env, client string) { return "", "", "" }

func newNetBody() sessionBody { return &netBody{} }

func (*execBody) sessionIDs() (body, env, client string) { return "", "", "" }

func (*reportBody) sessionIDs() (body, env, client string) { return "", "", "" }

func newExecBody() sessionBody { return &execBody{} }

func newReportBody() sessionBody { return &reportBody{} }
