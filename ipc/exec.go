package ipc

import "pathgrant/wire"

// execBody and reportBody are the exec routes' bodies; their session
// comes from the capability alone.
type execBody struct{ wire.ExecRequest }

type reportBody struct{ wire.Report }

func (*execBody) sessionIDs() (body, env, client string) { return "", "", "" }

func (*reportBody) sessionIDs() (body, env, client string) { return "", "", "" }

func newExecBody() sessionBody { return &execBody{} }

func newReportBody() sessionBody { return &reportBody{} }
