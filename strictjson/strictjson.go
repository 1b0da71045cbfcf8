// Package strictjson decodes JSON that pathgrant reads from a caller it
// does not trust (a request body on the socket, a tool's arguments) so
// that nothing in it is silently dropped or picked: no unknown field, no
// key given twice as encoding/json would read it, nothing after the
// value. encoding/json alone keeps the last of two keys and ignores
// unknown ones, so what a reader sees could differ from what a check saw.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Decode reads data, one JSON value, into v strictly.
func Decode(data []byte, v any) error {
	// Text the scan finds malformed is left to the decoder, which
	// refuses it saying where.
	if err := checkDuplicateKeys(data, reflect.TypeOf(v)); err != nil && !errors.Is(err, errMalformed) {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the value")
	}
	return nil
}
