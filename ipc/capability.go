package ipc

import "pathgrant/engine"

// capRoute declares a route whose session comes from a capability of
// kind alone (the exec routes): no session id in any source.
func capRoute(pattern string, kind engine.CapKind, body func() sessionBody, act sessionHandler) route {
	rt := withBody(pattern, 0, body, act)
	rt.session.capability, rt.limit = kind, maxExecBody
	return rt
}

// maxExecBody bounds an exec route's body: it carries the front end's
// environment.
const maxExecBody = 1 << 20
