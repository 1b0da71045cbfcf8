package ipc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestCheckDuplicateKeys(t *testing.T) {
	deep := strings.Repeat(`{"a":`, maxDepth) + `1` + strings.Repeat(`}`, maxDepth)
	tests := []struct {
		name string
		in   string
		dup  bool // a duplicate key
		err  bool // any error
	}{
		{"nested distinct", `{"a":1,"b":{"a":2}}`, false, false},
		{"array of objects", `{"a":[{"x":1},{"x":2}]}`, false, false},
		{"same key", `{"a":1,"a":1}`, true, true},
		{"deep in an array", `{"a":{"b":[{"c":1,"c":2}]}}`, true, true},
		{"escaped value", `{"a":"\u0062","b":1}`, false, false},
		{"escaped key", `{"a":1,"\u0061":2}`, true, true},
		{"escaped quote in a key", `{"a\"b":1,"a\u0022b":2}`, true, true},
		{"case, top level: one struct field", `{"op":"read","OP":"write"}`, true, true},
		{"Unicode folding, top level", `{"s":1,"ſ":2}`, true, true},
		{"Kelvin sign, top level", `{"k":1,"K":2}`, true, true},
		{"case in a map below: an environment", `{"env":{"http_proxy":"a","HTTP_PROXY":"b"}}`, false, false},
		{"same key in a map below", `{"env":{"A":"a","A":"b"}}`, true, true},
		{"strings holding braces", `{"a":"{\"a\":1,\"a\":2}","b":"]"}`, false, false},
		{"empty containers", `{"a":{},"b":[],"c":[[]]}`, false, false},
		{"literals", `{"a":true,"b":null,"c":-1.5e3}`, false, false},
		{"64 deep", deep, false, false},
		{"65 deep", `[` + deep + `]`, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkDuplicateKeys([]byte(tt.in))
			if errors.Is(err, errDuplicateKey) != tt.dup || (err != nil) != tt.err {
				t.Fatalf("%s: err %v, want duplicate %v, error %v", tt.in, err, tt.dup, tt.err)
			}
			if oerr := tokenDuplicates([]byte(tt.in)); (oerr != nil) != tt.err {
				t.Fatalf("%s: the token walker says %v: the row is wrong", tt.in, oerr)
			}
		})
	}
}

// FuzzCheckDuplicateKeys holds the hand-written scanner to a walk of
// encoding/json's own token stream: on every valid JSON text both refuse
// or both accept. (On malformed text the scanner may accept: the decoder
// after it refuses.) Its seed corpus is in testdata/fuzz.
func FuzzCheckDuplicateKeys(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		got, want := checkDuplicateKeys(data), tokenDuplicates(data)
		if (got != nil) != (want != nil) {
			t.Fatalf("%q: scanner %v, token walk %v", data, got, want)
		}
	})
}

// tokenDuplicates is the reference: encoding/json's token stream walked
// with the same rules (keys unescaped by the decoder; folded in the
// top-level object; at most maxDepth deep).
func tokenDuplicates(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return tokenValue(dec, 0)
}

func tokenValue(dec *json.Decoder, depth int) error {
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
	if d == '[' {
		for dec.More() {
			if err := tokenValue(dec, depth+1); err != nil {
				return err
			}
		}
		_, err := dec.Token()
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if depth == 0 {
			key = foldKey(key)
		}
		if seen[key] {
			return fmt.Errorf("%w %q", errDuplicateKey, key)
		}
		seen[key] = true
		if err := tokenValue(dec, depth+1); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}
