package wire

import (
	"strings"
	"time"
)

// Choice is one approval a pending request offers the person: a scope
// (once, session, device), what is granted (the suggested file or folder,
// or a file's folder), and for a session or device grant how long it may
// last at most ("" is the scope's own end: the session's, or always). Each
// choice of a request has its own approval code, so a code presented over
// the socket buys that choice and nothing wider. It never crosses the
// socket: the daemon hands the choices and their codes to the person's
// approver alone.
type Choice struct {
	Scope string    // once | session | device
	Kind  GrantKind // file | folder: what is granted, never ""
	For   string    // the longest a session or device grant may last; "" unlimited
}

// OfferedFor lists the durations a session or device grant is offered
// for, the scope's own end ("") first: the prompt's duration menus, and
// the choices that get a code of their own. A once grant has one, "".
func OfferedFor(scope string) []string {
	switch scope {
	case "session":
		return []string{"", "15m", "1h", "8h"}
	case "device":
		return []string{"", "1h", "8h", "168h"}
	}
	return []string{""}
}

// Key names a choice as the person reads it beside its code and types
// its flags: the scope, "+folder" when a folder is granted, "+" and the
// duration when it is limited ("once", "session+1h", "device+folder").
func (c Choice) Key() string {
	k := c.Scope
	if c.Kind == KindFolder {
		k += "+folder"
	}
	if c.For != "" {
		k += "+" + c.For
	}
	return k
}

// Covers reports whether an approval of scope, granting kind and lasting
// lasting (0: the scope's own end) stays within c: the same scope and
// kind, and no longer than c allows. A duration narrower than c's is
// within it; none, when c is limited, is wider.
func (c Choice) Covers(scope string, kind GrantKind, lasting time.Duration) bool {
	if scope != c.Scope || kind != c.Kind {
		return false
	}
	if c.For == "" {
		return true
	}
	limit, err := time.ParseDuration(c.For)
	return err == nil && lasting > 0 && lasting <= limit
}

// ChoiceCode is a choice and its approval code, for the person's eyes
// only (the prompt window, the headless daemon's log line).
type ChoiceCode struct {
	Choice
	Code string
}

// CodesText lists codes as the headless log line spells them, one
// "key=CODE" per choice, space-separated, in the order given.
func CodesText(codes []ChoiceCode) string {
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = c.Key() + "=" + c.Code
	}
	return strings.Join(parts, " ")
}

// CodeFor is the code of choice c among codes, "" when c is not offered.
func CodeFor(codes []ChoiceCode, c Choice) string {
	for _, cc := range codes {
		if cc.Choice == c {
			return cc.Code
		}
	}
	return ""
}

// Flags spells a choice as the flags of `pathgrant approve` that ask for
// it: "--scope session --folder --for 1h".
func (c Choice) Flags() string {
	f := "--scope " + c.Scope
	if c.Kind == KindFolder {
		f += " --folder"
	}
	if c.For != "" {
		f += " --for " + c.For
	}
	return f
}
