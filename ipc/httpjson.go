package ipc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"pathgrant/grants"
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

func (e *apiError) Error() string { return e.msg }

func errorf(status int, kind grants.Kind, format string, args ...any) *apiError {
	return &apiError{status: status, kind: kind, msg: fmt.Sprintf(format, args...)}
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, wire.Error{Error: e.msg, Kind: string(e.kind)})
}

// decodeStrict reads one JSON object with no unknown fields, no key named
// twice in any object, and nothing after it. A body over the limit is
// 413; anything malformed is 400.
func decodeStrict(r *http.Request, v any) *apiError {
	data, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return errorf(http.StatusRequestEntityTooLarge, "", "request body over %d bytes", tooBig.Limit)
	}
	if err != nil {
		return errorf(http.StatusBadRequest, "", "read body: %v", err)
	}
	if err := checkDuplicateKeys(data); err != nil {
		return errorf(http.StatusBadRequest, "", "malformed JSON: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errorf(http.StatusBadRequest, "", "malformed JSON: %v", err)
	}
	if dec.More() {
		return errorf(http.StatusBadRequest, "", "malformed JSON: data after the object")
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
