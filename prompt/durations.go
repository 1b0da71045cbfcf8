package prompt

// Duration is one choice of how long a session or device grant lasts:
// For is the wire.Decision's For ("" is the scope's own end).
type Duration struct {
	Label string // as the person reads it, in the duration menu
	For   string
}

// SessionDurations are the choices for "Allow for this session", the
// session's own end first.
var SessionDurations = []Duration{
	{"until the session ends", ""},
	{"for 15 minutes", "15m"},
	{"for 1 hour", "1h"},
	{"for 8 hours", "8h"},
}

// DeviceDurations are the choices for the device grant, the durable one
// first: it says "always", so nobody grants forever by not reading.
var DeviceDurations = []Duration{
	{"always, until you revoke it", ""},
	{"for 1 hour", "1h"},
	{"for 8 hours", "8h"},
	{"for 7 days", "168h"},
}

// labels lists the choices' labels, for a select.
func labels(ds []Duration) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Label
	}
	return out
}

// durationFor is the For of the choice labelled label; "" (the scope's
// own end) when none is.
func durationFor(ds []Duration, label string) string {
	for _, d := range ds {
		if d.Label == label {
			return d.For
		}
	}
	return ""
}

// FolderConfirmText is the second question before a durable grant of a
// whole folder.
func FolderConfirmText(folder, lasts string) string {
	return "This lets every agent session on this device read everything under " + folder +
		", " + lasts + ". Grant it?"
}
