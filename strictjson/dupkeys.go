package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"unicode"
	"unicode/utf8"
)

// ErrDuplicateKey is a JSON object that names one key twice.
var ErrDuplicateKey = errors.New("duplicate key")

// maxDepth bounds the nesting checkDuplicateKeys follows.
const maxDepth = 64

// checkDuplicateKeys fails on an object, at any depth, that names a key
// twice as encoding/json reads it into a value of type t (nil: unknown,
// as for a json.RawMessage): it would keep the last one silently. Keys
// are compared unescaped; in an object decoded into a struct they are
// also compared case-folded, because encoding/json fills a field from any
// key equal to its name under Unicode case folding ("op" and "OP", "s"
// and "ſ" fill one field), while a map's keys may differ by case alone
// (a session's environment holds http_proxy and HTTP_PROXY). It scans the
// text once, by hand: the decoder's token stream cost more than the rest
// of a check's decoding. Malformed text may pass here: the decoder that
// follows refuses it.
func checkDuplicateKeys(data []byte, t reflect.Type) error {
	s := scanner{data: data}
	return s.value(0, t)
}

type scanner struct {
	data []byte
	i    int
}

var errMalformed = errors.New("malformed JSON")

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one value at depth (the objects and arrays around it),
// bound for a value of type t.
func (s *scanner) value(depth int, t reflect.Type) error {
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
			return s.object(depth+1, t)
		}
		return s.array(depth+1, elemOf(t))
	case '"':
		return s.skipStr()
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

func (s *scanner) array(depth int, elem reflect.Type) error {
	s.i++ // [
	s.space()
	if s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		if err := s.value(depth, elem); err != nil {
			return err
		}
		if done, err := s.next(']'); done || err != nil {
			return err
		}
	}
}

func (s *scanner) object(depth int, t reflect.Type) error {
	s.i++ // {
	s.space()
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
		return nil
	}
	fields := fieldsOf(t)
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
		name, member := key, mapElem(t)
		if fields != nil {
			name = foldKey(key)
			member = fields[name]
		}
		if seen[name] {
			return fmt.Errorf("%w %q", ErrDuplicateKey, key)
		}
		seen[name] = true
		s.space()
		if s.i >= len(s.data) || s.data[s.i] != ':' {
			return errMalformed
		}
		s.i++
		if err := s.value(depth, member); err != nil {
			return err
		}
		if done, err := s.next('}'); done || err != nil {
			return err
		}
	}
}

// next reads the comma or the closing delimiter after a member; done
// when it was the closing one.
func (s *scanner) next(closing byte) (done bool, err error) {
	s.space()
	if s.i >= len(s.data) {
		return false, errMalformed
	}
	s.i++
	switch s.data[s.i-1] {
	case ',':
		return false, nil
	case closing:
		return true, nil
	}
	return false, errMalformed
}

// skipStr scans past a string value at s.i: only keys are compared, so
// a value is neither unescaped nor copied.
func (s *scanner) skipStr() error {
	for s.i++; s.i < len(s.data); s.i++ {
		switch s.data[s.i] {
		case '\\':
			s.i++
		case '"':
			s.i++
			return nil
		}
	}
	return errMalformed
}

// str scans a string at s.i and returns its text, unescaped as
// encoding/json unescapes it.
func (s *scanner) str() (string, error) {
	start := s.i
	if err := s.skipStr(); err != nil {
		return "", err
	}
	raw := s.data[start:s.i]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), nil
	}
	var out string
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", errMalformed
	}
	return out, nil
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
