package ipc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/strictjson"
	"pathgrant/wire"
)

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// apiError is a refusal with its HTTP status and, for session and peer
// refusals, the audit kind it is recorded under.
type apiError struct {
	status int
	kind   grants.Kind
	msg    string
}

func errorf(status int, kind grants.Kind, format string, args ...any) *apiError {
	return &apiError{status: status, kind: kind, msg: fmt.Sprintf(format, args...)}
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, wire.Error{Error: e.msg, Kind: string(e.kind)})
}

// httpStatus is the HTTP status of each kind of engine refusal.
var httpStatus = map[engine.Code]int{
	engine.BadRequest: http.StatusBadRequest, engine.Forbidden: http.StatusForbidden, engine.NotFound: http.StatusNotFound,
	engine.Conflict: http.StatusConflict, engine.Gone: http.StatusGone, engine.TooMany: http.StatusTooManyRequests,
	engine.Unavailable: http.StatusServiceUnavailable, engine.Internal: http.StatusInternalServerError,
}

// fromEngine is an engine refusal as the socket answers it; a code with
// no status is a 500.
func fromEngine(e *engine.Error) *apiError {
	status, ok := httpStatus[e.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	return &apiError{status: status, kind: e.Kind, msg: e.Msg}
}

// reply answers v with status 200, or the engine's refusal.
func reply(w http.ResponseWriter, v any, err *engine.Error) {
	if err != nil {
		writeError(w, fromEngine(err))
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// decodeStrict reads one JSON object as strictjson.Decode does: no
// unknown fields, no key named twice, nothing after it. A body over the
// limit is 413; anything malformed is 400.
func decodeStrict(r *http.Request, v any) *apiError {
	data, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return errorf(http.StatusRequestEntityTooLarge, "", "request body over %d bytes", tooBig.Limit)
	}
	if err != nil {
		return errorf(http.StatusBadRequest, "", "read body: %v", err)
	}
	if err := strictjson.Decode(data, v); err != nil {
		return errorf(http.StatusBadRequest, "", "malformed JSON: %v", err)
	}
	return nil
}

// limitBody refuses a body over limit bytes (413) when it is read.
func limitBody(next http.Handler, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}
