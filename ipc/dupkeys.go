package ipc

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// errDuplicateKey is a JSON object that names one key twice.
var errDuplicateKey = errors.New("duplicate key")

// maxDepth bounds the nesting checkDuplicateKeys follows.
const maxDepth = 64

// checkDuplicateKeys fails on an object, at any depth, that names a key
// twice as encoding/json reads it: it would keep the last one silently.
// Keys are compared unescaped. In the body's own object, always a
// struct, they are also compared case-folded, because encoding/json fills
// a struct field from any key equal to its name under Unicode case
// folding ("op" and "OP", "s" and "ſ" fill one field); deeper objects may
// be maps (a session's environment), whose keys differ by case. It scans
// the text once, by hand: the decoder's token stream cost more than the
// rest of a check's decoding. Malformed text may pass here: the decoder
// that follows refuses it.
func checkDuplicateKeys(data []byte) error {
	s := dupScanner{data: data}
	return s.value(0)
}

type dupScanner struct {
	data []byte
	i    int
}

var errMalformed = errors.New("malformed JSON")

func (s *dupScanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one value at depth (the objects and arrays around it).
func (s *dupScanner) value(depth int) error {
	s.space()
	if s.i >= len(s.data) {
		return errMalformed
	}
	switch s.data[s.i] {
	case '{', '[':
		if depth >= maxDepth {
			return fmt.Errorf("nested deeper than %d", maxDepth)
		}
		if s.data[s.i] == '{' {
			return s.object(depth + 1)
		}
		return s.array(depth + 1)
	case '"':
		_, err := s.str()
		return err
	}
	for s.i < len(s.data) { // a number or a literal: up to what ends it
		switch s.data[s.i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return nil
		}
		s.i++
	}
	return nil
}

func (s *dupScanner) array(depth int) error {
	s.i++ // [
	s.space()
	if s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		if err := s.value(depth); err != nil {
			return err
		}
		s.space()
		if s.i >= len(s.data) {
			return errMalformed
		}
		s.i++
		switch s.data[s.i-1] {
		case ',':
		case ']':
			return nil
		default:
			return errMalformed
		}
	}
}

func (s *dupScanner) object(depth int) error {
	s.i++ // {
	s.space()
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
		return nil
	}
	seen := map[string]bool{}
	for {
		s.space()
		if s.i >= len(s.data) || s.data[s.i] != '"' {
			return errMalformed
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		name := key
		if depth == 1 {
			name = foldKey(key)
		}
		if seen[name] {
			return fmt.Errorf("%w %q", errDuplicateKey, key)
		}
		seen[name] = true
		s.space()
		if s.i >= len(s.data) || s.data[s.i] != ':' {
			return errMalformed
		}
		s.i++
		if err := s.value(depth); err != nil {
			return err
		}
		s.space()
		if s.i >= len(s.data) {
			return errMalformed
		}
		s.i++
		switch s.data[s.i-1] {
		case ',':
		case '}':
			return nil
		default:
			return errMalformed
		}
	}
}

// str scans a string at s.i and returns its text, unescaped as
// encoding/json unescapes it.
func (s *dupScanner) str() (string, error) {
	start := s.i
	s.i++ // "
	escaped := false
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case '\\':
			escaped = true
			s.i += 2
			continue
		case '"':
			s.i++
			raw := s.data[start:s.i]
			if !escaped && utf8.Valid(raw) {
				return string(raw[1 : len(raw)-1]), nil
			}
			var out string
			if err := json.Unmarshal(raw, &out); err != nil {
				return "", errMalformed
			}
			return out, nil
		}
		s.i++
	}
	return "", errMalformed
}

// foldKey is key as encoding/json matches it against field names: ASCII
// letters upper-cased, every other rune mapped through lower then upper
// case, so that two keys fold alike exactly when they fill one field.
func foldKey(key string) string {
	b := make([]byte, 0, len(key))
	for _, r := range key {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b = append(b, byte(r))
			continue
		}
		b = utf8.AppendRune(b, unicode.ToUpper(unicode.ToLower(r)))
	}
	return string(b)
}
