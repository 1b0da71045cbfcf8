package cli

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tailscale/hujson"
)

// decodeJSONC parses a JSON document that may hold comments and trailing
// commas, which OpenCode accepts in opencode.json and opencode.jsonc
// alike: doctor must read them as OpenCode does to see what it sees.
func decodeJSONC(data []byte) (any, error) {
	std, err := standardJSON(data)
	if err != nil {
		return nil, fmt.Errorf("not JSON with comments: %w", err)
	}
	var v any
	if err := json.Unmarshal(std, &v); err != nil {
		return nil, fmt.Errorf("not JSON with comments: %w", err)
	}
	return v, nil
}

// standardJSON is data with its comments and trailing commas blanked
// (hujson.Standardize, on a copy: it works in place), each line where it
// was.
func standardJSON(data []byte) ([]byte, error) {
	return hujson.Standardize(bytes.Clone(data))
}
