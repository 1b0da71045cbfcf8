package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// editSettings reads the JSON settings file at path (missing or empty: an
// empty object), applies edit, and writes the result back atomically if
// it changed, after saving the previous file as a timestamped backup. A
// symlinked settings file is edited where it points. A file that is not a
// JSON object is left alone: an error.
func editSettings(path string, edit func(*ihObject) error) (changed bool, backup string, err error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, "", err
	}
	exists := err == nil
	doc := newIHObject()
	if len(bytes.TrimSpace(old)) > 0 {
		v, err := ihDecode(old)
		if err != nil {
			return false, "", fmt.Errorf("%s is not valid JSON (%v); fix it or move it aside, then run this again", path, err)
		}
		obj, ok := v.(*ihObject)
		if !ok {
			return false, "", fmt.Errorf("%s does not hold a JSON object; fix it or move it aside", path)
		}
		doc = obj
	}
	if err := edit(doc); err != nil {
		return false, "", fmt.Errorf("%s: %w", path, err)
	}
	var buf bytes.Buffer
	ihEncode(&buf, doc, "")
	buf.WriteByte('\n')
	if exists && bytes.Equal(buf.Bytes(), old) || !exists && len(doc.keys) == 0 {
		return false, "", nil
	}
	if exists && ihCanonical(old) == ihCanonical(buf.Bytes()) {
		return false, "", nil // only the layout would change
	}
	if err := writeSettings(path, old, exists, buf.Bytes(), &backup); err != nil {
		return false, "", err
	}
	return true, backup, nil
}

// ihCanonical is a file's JSON with the layout normalised, or the raw text
// when it does not parse.
func ihCanonical(data []byte) string {
	v, err := ihDecode(data)
	if err != nil {
		return string(data)
	}
	var buf bytes.Buffer
	ihEncode(&buf, v, "")
	return buf.String()
}

// writeSettings saves old as a backup (when the file existed) and then
// replaces the file with data, keeping its mode.
func writeSettings(path string, old []byte, exists bool, data []byte, backup *string) error {
	mode := fs.FileMode(0o600)
	if exists {
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
		*backup = backupName(path)
		if err := os.WriteFile(*backup, old, mode); err != nil {
			return fmt.Errorf("back up %s: %w", path, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".pathgrant-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// installPiExtension writes pathgrant's Pi extension (PiExtensionFor).
var installPiExtension = ownFile(PiExtensionMarker, PiExtensionFor)

// ownFile is the Installer of a file pathgrant writes whole (Pi's
// extension, Cline's hook script), which starts with marker: written
// anew for argv, and moved aside to a backup on uninstall. A file there
// that is not pathgrant's is left alone: an error.
func ownFile(marker string, content func(argv []string) string) Installer {
	return func(path string, argv []string, uninstall bool) (changed bool, backup string, err error) {
		old, err := os.ReadFile(path)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, "", err
		}
		if exists && !bytes.HasPrefix(old, []byte(marker)) {
			return false, "", fmt.Errorf("%s exists and is not pathgrant's; move it aside, then run this again", path)
		}
		if uninstall {
			if !exists {
				return false, "", nil
			}
			backup = backupName(path)
			if err := os.Rename(path, backup); err != nil {
				return false, "", fmt.Errorf("move %s aside: %w", path, err)
			}
			return true, backup, nil
		}
		data := []byte(content(argv))
		if exists && bytes.Equal(old, data) {
			return false, "", nil
		}
		if err := writeSettings(path, old, exists, data, &backup); err != nil {
			return false, "", err
		}
		return true, backup, nil
	}
}

// backupName is where the previous version of path is saved.
func backupName(path string) string {
	return path + ".pathgrant-backup-" + time.Now().UTC().Format("20060102T150405.000Z")
}

// ihObject is a JSON object that keeps its keys in order, so that a
// settings file keeps its layout apart from what install-hooks changes.
// Values are *ihObject, []any, string, json.Number, bool or nil.
type ihObject struct {
	keys []string
	vals map[string]any
}

func newIHObject(kv ...any) *ihObject {
	o := &ihObject{vals: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *ihObject) has(k string) bool { _, ok := o.vals[k]; return ok }

func (o *ihObject) set(k string, v any) {
	if !o.has(k) {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *ihObject) setFirst(k string, v any) {
	o.del(k)
	o.keys = append([]string{k}, o.keys...)
	o.vals[k] = v
}

func (o *ihObject) del(k string) {
	if !o.has(k) {
		return
	}
	delete(o.vals, k)
	o.keys = slices.DeleteFunc(o.keys, func(s string) bool { return s == k })
}

// object returns the object under k, creating it when create is set; a
// value of another type under k is an error (nothing is overwritten).
func (o *ihObject) object(k string, create bool) (*ihObject, error) {
	v, ok := o.vals[k]
	if !ok || v == nil {
		if !create {
			return nil, nil
		}
		n := newIHObject()
		o.set(k, n)
		return n, nil
	}
	obj, ok := v.(*ihObject)
	if !ok {
		return nil, fmt.Errorf("%q is not an object", k)
	}
	return obj, nil
}

// array returns the array under k (nil when absent).
func (o *ihObject) array(k string) ([]any, error) {
	v, ok := o.vals[k]
	if !ok || v == nil {
		return nil, nil
	}
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%q is not an array", k)
	}
	return a, nil
}

func ihDecode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := ihValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the top-level value")
	}
	return v, nil
}

func ihValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := newIHObject()
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := ihValue(dec)
			if err != nil {
				return nil, err
			}
			o.set(kt.(string), v)
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := ihValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return tok, nil
}

// ihEncode writes v indented by two spaces, keys in their order.
func ihEncode(buf *bytes.Buffer, v any, indent string) {
	inner := indent + "  "
	switch v := v.(type) {
	case *ihObject:
		if len(v.keys) == 0 {
			buf.WriteString("{}")
			return
		}
		buf.WriteString("{\n")
		for i, k := range v.keys {
			buf.WriteString(inner)
			ihScalar(buf, k)
			buf.WriteString(": ")
			ihEncode(buf, v.vals[k], inner)
			if i < len(v.keys)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		buf.WriteString(indent + "}")
	case []any:
		if len(v) == 0 {
			buf.WriteString("[]")
			return
		}
		buf.WriteString("[\n")
		for i, e := range v {
			buf.WriteString(inner)
			ihEncode(buf, e, inner)
			if i < len(v)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		buf.WriteString(indent + "]")
	default:
		ihScalar(buf, v)
	}
}

func ihScalar(buf *bytes.Buffer, v any) {
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil { // strings, numbers, bools and null always encode
		panic(err)
	}
	buf.Write(bytes.TrimSuffix(enc.Bytes(), []byte("\n")))
}
