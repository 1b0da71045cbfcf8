package ipc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// errDuplicateKey is a JSON object that names one key twice.
var errDuplicateKey = errors.New("duplicate key")

// checkDuplicateKeys walks the JSON text token by token and fails on an
// object, at any depth, that names a key twice: encoding/json would keep
// the last one silently.
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return walkValue(dec, 0)
}

// maxDepth bounds the nesting walkValue follows.
const maxDepth = 64

func walkValue(dec *json.Decoder, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth >= maxDepth {
		return fmt.Errorf("nested deeper than %d", maxDepth)
	}
	switch d {
	case '{':
		return walkObject(dec, depth+1)
	case '[':
		for dec.More() {
			if err := walkValue(dec, depth+1); err != nil {
				return err
			}
		}
		_, err := dec.Token() // ]
		return err
	}
	return nil
}

func walkObject(dec *json.Decoder, depth int) error {
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if seen[key] {
			return fmt.Errorf("%w %q", errDuplicateKey, key)
		}
		seen[key] = true
		if err := walkValue(dec, depth); err != nil {
			return err
		}
	}
	_, err := dec.Token() // }
	return err
}
