package ipc

import (
	"encoding/json"
	"net/http"
	"pathgrant/wire"
	"strconv"
	"strings"
	"time"
)

// Page bounds of GET /v1/requests: a page holds at most limit requests
// and, past its first request, at most pageBytes of JSON, so every answer
// stays small whatever the agents asked.
const (
	defaultPageLimit = 100
	maxPageLimit     = 500
	pageBytes        = 256 << 10
)

// handleListRequests answers one page of the pending requests: the ones
// after the cursor ?after=, at most ?limit= of them.
func (s *Server) handleListRequests(w http.ResponseWriter, r *http.Request) {
	writePage(w, r, s.queue.pending())
}

// writePage answers the page of all that the request's ?after= and
// ?limit= select.
func writePage(w http.ResponseWriter, r *http.Request, all []wire.Request) {
	q := r.URL.Query()
	limit, aerr := pageLimit(q.Get("limit"))
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	after, ok := parseCursor(q.Get("after"))
	if !ok {
		writeError(w, errorf(http.StatusBadRequest, "", "malformed cursor %q: pass the next value of the previous page", q.Get("after")))
		return
	}
	writeJSON(w, http.StatusOK, page(all, after, limit))
}

func pageLimit(v string) (int, *apiError) {
	if v == "" {
		return defaultPageLimit, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxPageLimit {
		return 0, errorf(http.StatusBadRequest, "", "limit must be 1 to %d, not %q", maxPageLimit, v)
	}
	return n, nil
}

// page cuts the sorted requests after the cursor into one page.
func page(all []wire.Request, after *wire.Request, limit int) wire.RequestPage {
	out := wire.RequestPage{Requests: []wire.Request{}}
	size := 0
	for _, req := range all {
		if after != nil && !requestBefore(*after, req) {
			continue
		}
		data, _ := json.Marshal(req)
		if len(out.Requests) == limit || (len(out.Requests) > 0 && size+len(data) > pageBytes) {
			last := out.Requests[len(out.Requests)-1]
			out.Next = cursor(last)
			return out
		}
		size += len(data)
		out.Requests = append(out.Requests, req)
	}
	return out
}

// cursor names a place in the order of requests: its creation time and id.
func cursor(r wire.Request) string {
	return strconv.FormatInt(r.Created.UnixNano(), 10) + "." + r.ID
}

// parseCursor reads a cursor back as the request it follows; "" is the
// start.
func parseCursor(v string) (*wire.Request, bool) {
	if v == "" {
		return nil, true
	}
	ns, id, ok := strings.Cut(v, ".")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || id == "" {
		return nil, false
	}
	return &wire.Request{ID: id, Created: time.Unix(0, n)}, true
}

func (s *Server) handleGetRequest(w http.ResponseWriter, r *http.Request) {
	req, _, ok := s.queue.get(r.PathValue("id"))
	if !ok {
		writeError(w, errorf(http.StatusNotFound, "", "no approval request %s", r.PathValue("id")))
		return
	}
	writeJSON(w, http.StatusOK, req)
}

// Request is one approval request, pending or ended, as the person sees
// it in process (the app's windows).
func (s *Server) Request(id string) (wire.Request, bool) {
	r, _, ok := s.queue.get(id)
	return r, ok
}

// handleDecision applies a decision sent over the socket. It is
// person-only (servePerson has refused any process acting for an agent,
// or whose lineage cannot be read); it refuses any malformed,
// unknown-field or duplicate-key body, an approval without the request's
// code or above what the person was offered, and any scope the request
// was not eligible for; only then does a grant exist.
func (s *Server) handleDecision(w http.ResponseWriter, r *http.Request) {
	var dec wire.Decision
	if err := decodeStrict(r, &dec); err != nil {
		writeError(w, err)
		return
	}
	done, err := s.decide(r.PathValue("id"), dec, byCode)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, done)
}

// Decide applies a decision the person made in the daemon's own windows
// (the prompt, the settings window), in process. It is the same path as
// the decision route minus the caller checks and the code: those windows
// run inside the daemon, never under an agent, and are where the code is
// shown.
func (s *Server) Decide(id string, d wire.Decision) (wire.Request, error) {
	r, err := s.decide(id, d, byPerson)
	if err != nil {
		return r, err
	}
	return r, nil
}
