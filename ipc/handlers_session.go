package ipc

import (
	"net/http"

	"pathgrant/wire"
)

// The handlers of the routes that act for one session: decode (the body
// is read before the session resolves: serveSession), call the engine,
// encode.

func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) {
	var req wire.SessionRequest
	if err := decodeStrict(r, &req); err != nil {
		writeError(w, err)
		return
	}
	resp, err := s.e.Register(req, r.Header.Get(wire.HeaderToken), s.lineage(r))
	if err != nil {
		writeError(w, fromEngine(err))
		return
	}
	writeJSON(w, http.StatusCreated, resp)
}

func (s *Server) handleEndSession(w http.ResponseWriter, _ *http.Request, c sessionCall) {
	ended, err := s.e.EndSession(c.Call)
	reply(w, map[string]any{"id": c.SessionID(), "grants_ended": ended}, err)
}

func (s *Server) handleCheck(w http.ResponseWriter, r *http.Request, c sessionCall) {
	ans, err := s.e.Check(r.Context(), c.Call, c.body.(*checkBody).CheckRequest)
	reply(w, ans, err)
}

func (s *Server) handlePolicy(w http.ResponseWriter, _ *http.Request, c sessionCall) {
	pol, err := s.e.Policy(c.Call)
	reply(w, pol, err)
}

func (s *Server) handleExec(w http.ResponseWriter, _ *http.Request, c sessionCall) {
	p, err := s.e.Exec(c.Call, c.body.(*execBody).ExecRequest)
	reply(w, p, err)
}

func (s *Server) handleExecReport(w http.ResponseWriter, r *http.Request, c sessionCall) {
	out, err := s.e.ExplainReport(r.Context(), c.Call, c.body.(*reportBody).Lines)
	reply(w, out, err)
}

func (s *Server) handleHold(w http.ResponseWriter, r *http.Request, c sessionCall) {
	out, err := s.e.Hold(r.Context(), c.Call, c.body.(*holdBody).HoldRequest)
	reply(w, out, err)
}

func (s *Server) handleTool(w http.ResponseWriter, r *http.Request, c sessionCall) {
	res, err := s.e.Tool(r.Context(), c.Call, r.PathValue("tool"), c.body.(*toolBody).ToolRequest)
	reply(w, res, err)
}
