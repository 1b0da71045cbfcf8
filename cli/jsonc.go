package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// decodeJSONC parses a JSON document that may hold what OpenCode's
// config parser accepts beyond JSON: // and /* */ comments and a comma
// before a closing bracket. OpenCode reads opencode.json and
// opencode.jsonc alike that way, so doctor must read them the same to see
// what OpenCode sees.
func decodeJSONC(data []byte) (any, error) {
	var v any
	if err := json.Unmarshal(jsoncToJSON(data), &v); err != nil {
		return nil, fmt.Errorf("not JSON with comments: %w", err)
	}
	return v, nil
}

// jsoncToJSON is data with its comments and trailing commas blanked:
// plain JSON when data is JSON with comments, the same length, each line
// where it was.
func jsoncToJSON(data []byte) []byte { return trailingCommas(stripComments(data)) }

// stripComments blanks every comment outside a string with spaces,
// keeping the line breaks, so that an error still points at its line.
// An unterminated block comment runs to the end, as in the parser.
func stripComments(data []byte) []byte {
	out := bytes.Clone(data)
	inString := false
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case inString && c == '\\':
			i++ // the escaped byte, a quote included
		case c == '"':
			inString = !inString
		case inString:
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			stop := len(out)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for ; i < stop; i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			i--
		}
	}
	return out
}

// trailingCommas blanks a comma outside a string that only white space
// separates from the } or ] closing its object or array.
func trailingCommas(data []byte) []byte {
	out := bytes.Clone(data)
	inString := false
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString || c != ',':
		default:
			j := i + 1
			for j < len(out) && isJSONSpace(out[j]) {
				j++
			}
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				out[i] = ' '
			}
		}
	}
	return out
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
