package cli

import (
	"reflect"
	"testing"
)

// TestDecodeJSONC: comments and trailing commas are read as OpenCode's
// config parser reads them, and never inside a string; a document that is
// not JSON with comments is an error.
func TestDecodeJSONC(t *testing.T) {
	tests := []struct {
		name, in string
		want     any
		err      bool
	}{
		{name: "plain JSON", in: `{"a": [1, "b"]}`, want: map[string]any{"a": []any{1.0, "b"}}},
		{name: "line comment", in: "{\n  // note\n  \"a\": 1 // after\n}", want: map[string]any{"a": 1.0}},
		{name: "block comment", in: "{/* one\n two */\"a\": /**/ 1}", want: map[string]any{"a": 1.0}},
		{name: "trailing commas", in: "{\"a\": [1, 2,\n], \"b\": {\"c\": 3,},\n}", want: map[string]any{"a": []any{1.0, 2.0}, "b": map[string]any{"c": 3.0}}},
		{name: "trailing comma before a comment", in: "{\"a\": 1, // last\n}", want: map[string]any{"a": 1.0}},
		{name: "slashes in a string", in: `{"url": "http://x/*y*/", "p": "a//b"}`, want: map[string]any{"url": "http://x/*y*/", "p": "a//b"}},
		{name: "escaped quote in a string", in: `{"q": "say \"//\" ,}", "n": 1}`, want: map[string]any{"q": `say "//" ,}`, "n": 1.0}},
		{name: "escaped backslash ends the string", in: `{"d": "c:\\", "e": 2 // x` + "\n}", want: map[string]any{"d": `c:\`, "e": 2.0}},
		{name: "unterminated block comment", in: `{"a": 1} /* open`, err: true},
		{name: "not JSON", in: `{"plugin": [`, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeJSONC([]byte(tt.in))
			if (err != nil) != tt.err || !tt.err && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("decodeJSONC(%q) = %#v, %v; want %#v (error %v)", tt.in, got, err, tt.want, tt.err)
			}
		})
	}
}
