package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// shapes are the types test rows decode into: a struct holding a map,
// a nested struct, a list of structs and a raw member.
type (
	inner  struct{ A, B string }
	shapes struct {
		Op    string            `json:"op"`
		S     string            `json:"s"`
		K     string            `json:"k"`
		Env   map[string]string `json:"env"`
		In    *inner            `json:"in"`
		List  []inner           `json:"list"`
		ByKey map[string]inner  `json:"by_key"`
		Raw   json.RawMessage   `json:"raw"`
		Any   any               `json:"any"`
	}
)

func TestCheckDuplicateKeys(t *testing.T) {
	deep := strings.Repeat(`{"a":`, maxDepth) + `1` + strings.Repeat(`}`, maxDepth)
	into := reflect.TypeFor[shapes]()
	tests := []struct {
		name string
		in   string
		into reflect.Type // nil: decoded into nothing known
		dup  bool         // a duplicate key
		err  bool         // any error
	}{
		{"nested distinct", `{"a":1,"b":{"a":2}}`, nil, false, false},
		{"array of objects", `{"a":[{"x":1},{"x":2}]}`, nil, false, false},
		{"same key", `{"a":1,"a":1}`, nil, true, true},
		{"deep in an array", `{"a":{"b":[{"c":1,"c":2}]}}`, nil, true, true},
		{"escaped value", `{"a":"\u0062","b":1}`, nil, false, false},
		{"escaped key", `{"a":1,"\u0061":2}`, nil, true, true},
		{"escaped quote in a key", `{"a\"b":1,"a\u0022b":2}`, nil, true, true},
		{"case, unknown shape: kept apart", `{"op":"read","OP":"write"}`, nil, false, false},
		{"case, a struct: one field", `{"op":"read","OP":"write"}`, into, true, true},
		{"Unicode folding, a struct", `{"s":"a","ſ":"b"}`, into, true, true},
		{"Kelvin sign, a struct", `{"k":"a","K":"b"}`, into, true, true},
		{"case in a map: an environment", `{"env":{"http_proxy":"a","HTTP_PROXY":"b"}}`, into, false, false},
		{"same key in a map", `{"env":{"A":"a","A":"b"}}`, into, true, true},
		{"case in a nested struct", `{"in":{"a":"x","A":"y"}}`, into, true, true},
		{"case in a list of structs", `{"list":[{"b":"x"},{"a":"x","A":"y"}]}`, into, true, true},
		{"case in a map of structs", `{"by_key":{"k":{"b":"x","B":"y"}}}`, into, true, true},
		{"case in a raw member: its own reader decides", `{"raw":{"a":1,"A":2}}`, into, false, false},
		{"case under any", `{"any":{"a":1,"A":2}}`, into, false, false},
		{"strings holding braces", `{"a":"{\"a\":1,\"a\":2}","b":"]"}`, nil, false, false},
		{"empty containers", `{"a":{},"b":[],"c":[[]]}`, nil, false, false},
		{"literals", `{"a":true,"b":null,"c":-1.5e3}`, nil, false, false},
		{"64 deep", deep, nil, false, false},
		{"65 deep", `[` + deep + `]`, nil, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkDuplicateKeys([]byte(tt.in), tt.into)
			if errors.Is(err, ErrDuplicateKey) != tt.dup || (err != nil) != tt.err {
				t.Fatalf("%s: err %v, want duplicate %v, error %v", tt.in, err, tt.dup, tt.err)
			}
			if tt.into == nil {
				if oerr := tokenDuplicates([]byte(tt.in)); (oerr != nil) != tt.err {
					t.Fatalf("%s: the token walker says %v: the row is wrong", tt.in, oerr)
				}
			}
		})
	}
}

// TestDecode: what Decode refuses besides duplicate keys, and that it
// fills the value.
func TestDecode(t *testing.T) {
	tests := []struct {
		in   string
		want string // in the error; "" none
	}{
		{`{"op":"read","env":{"A":"1"}}`, ""},
		{`{"op":"read","opp":1}`, "unknown field"},
		{`{"op":"read"} {}`, "data after"},
		{`{"op":"read","OP":"x"}`, "duplicate key"},
		{`{"op":`, "unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var v shapes
			err := Decode([]byte(tt.in), &v)
			if tt.want == "" && (err != nil || v.Op != "read" || v.Env["A"] != "1") {
				t.Fatalf("%+v %v", v, err)
			}
			if tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// FuzzCheckDuplicateKeys holds the hand-written scanner, bound for no
// known shape, to a walk of encoding/json's own token stream: on every
// valid JSON text both refuse or both accept. (On malformed text the scanner may accept: the decoder
// after it refuses.) Its seed corpus is in testdata/fuzz.
func FuzzCheckDuplicateKeys(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		got, want := checkDuplicateKeys(data, nil), tokenDuplicates(data)
		if (got != nil) != (want != nil) {
			t.Fatalf("%q: scanner %v, token walk %v", data, got, want)
		}
	})
}

// tokenDuplicates is the reference: encoding/json's token stream walked
// with the same rules (keys unescaped by the decoder and compared
// exactly; at most maxDepth deep).
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
		if seen[key] {
			return fmt.Errorf("%w %q", ErrDuplicateKey, key)
		}
		seen[key] = true
		if err := tokenValue(dec, depth+1); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}
