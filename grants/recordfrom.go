package grants

import (
	"reflect"
	"strings"

	"pathgrant/guard"
)

// recordSetters maps the (lower-cased) request field names RecordFrom
// copies to where they go. Nothing else can reach a record.
var recordSetters = map[string]func(*Record, string){
	"session":   func(r *Record, v string) { r.Session = v },
	"sessionid": func(r *Record, v string) { r.Session = v },
	"workflow":  func(r *Record, v string) { r.Workflow = v },
	"agent":     func(r *Record, v string) { r.Agent = v },
	"tool":      func(r *Record, v string) { r.Tool = v },
	"requestid": func(r *Record, v string) { r.RequestID = v },
	"path":      func(r *Record, v string) { r.Path = v },
	"op": func(r *Record, v string) {
		if op, err := guard.ParseOp(v); err == nil {
			r.Op = op
		}
	},
}

// RecordFrom builds a record of kind from a request struct (or a pointer to
// one) by copying only its top-level string fields named Session or
// SessionID, Workflow, Agent, Tool, RequestID, Op and Path. A request also
// carries command text, file contents, environment and tokens; taking the
// whole request here and dropping the rest means the daemon cannot leak
// them into the log by filling in the wrong field.
func RecordFrom(kind Kind, req any) Record {
	rec := Record{Kind: kind}
	v := reflect.ValueOf(req)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return rec
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return rec
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		set, ok := recordSetters[strings.ToLower(f.Name)]
		if ok && f.IsExported() && f.Type.Kind() == reflect.String {
			set(&rec, v.Field(i).String())
		}
	}
	return rec
}
