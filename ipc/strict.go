package ipc

import (
	"net/http"
	"net/url"
	"pathgrant/wire"
)

// singleHeaders are the headers a request may carry at most once: a
// second value is refused rather than one of them picked.
var singleHeaders = []string{wire.HeaderSession, wire.HeaderToken}

// refuseDuplicates answers 400 to a request that repeats a session header
// or any query parameter: which value counts must never depend on which
// one a reader happens to take first.
func refuseDuplicates(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := duplicateParams(r); err != nil {
			writeError(w, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func duplicateParams(r *http.Request) *apiError {
	for _, h := range singleHeaders {
		if n := len(r.Header.Values(h)); n > 1 {
			return errorf(http.StatusBadRequest, "", "header %s given %d times: give it once", h, n)
		}
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return errorf(http.StatusBadRequest, "", "malformed query: %v", err)
	}
	for k, vs := range q {
		if len(vs) > 1 {
			return errorf(http.StatusBadRequest, "", "query parameter %s given %d times: give it once", k, len(vs))
		}
	}
	return nil
}
