package strictjson

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// The shape of the value a JSON text is decoded into, as far as
// checkDuplicateKeys needs it: which objects are structs (keys compared
// case-folded) and the type each member is decoded into.

var rawMessage = reflect.TypeFor[json.RawMessage]()

// deref is t without its pointers; nil for a type whose JSON encoding/json
// does not decode member by member (an interface, a json.RawMessage, a
// type with its own UnmarshalJSON).
func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t == rawMessage || t.Kind() == reflect.Interface ||
		reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return nil
	}
	return t
}

// elemOf is the type an array's elements are decoded into.
func elemOf(t reflect.Type) reflect.Type {
	if t = deref(t); t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		return t.Elem()
	}
	return nil
}

// structFields are a struct's members by folded JSON name; nil for an
// object that is not decoded into a struct.
type structFields map[string]reflect.Type

var fieldCache sync.Map // reflect.Type -> structFields

// fieldsOf is the members of t when t is a struct.
func fieldsOf(t reflect.Type) structFields {
	if t = deref(t); t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	if f, ok := fieldCache.Load(t); ok {
		return f.(structFields)
	}
	f := structFields{}
	for _, sf := range reflect.VisibleFields(t) {
		if !sf.IsExported() || sf.Anonymous && sf.Type.Kind() == reflect.Struct && sf.Tag.Get("json") == "" {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = sf.Name
		}
		f[foldKey(name)] = sf.Type
	}
	fieldCache.Store(t, f)
	return f
}

// mapElem is the type a map's members are decoded into; nil when t is
// not a map.
func mapElem(t reflect.Type) reflect.Type {
	if t = deref(t); t != nil && t.Kind() == reflect.Map {
		return t.Elem()
	}
	return nil
}
