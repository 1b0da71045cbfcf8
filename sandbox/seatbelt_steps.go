package sandbox

import (
	"fmt"
	"slices"

	"pathgrant/sandbox/seatbelt"
)

// seatbeltSkipped are the mounts the profile's own system rules stand for:
// macOS keeps its programs, configuration and resolver file elsewhere,
// and Seatbelt cannot make a private /tmp (the profile leaves /tmp out).
var seatbeltSkipped = []string{"system", "name resolution", "private /tmp"}

// seatbeltRO are the kinds of step a read-only bind becomes, by the part
// of the policy it comes from.
var seatbeltRO = map[string]seatbelt.Kind{
	"hidden": seatbelt.Hidden, "protected": seatbelt.NoWrite, "protected (folder)": seatbelt.NoWrite,
	"protected (empty)": seatbelt.NoWrite, "toolchain": seatbelt.ReadExec, "pathgrant": seatbelt.ReadExec,
	"pathgrant-confine": seatbelt.ReadExec, "approvable (names only)": seatbelt.Names,
	"read-only root": seatbelt.Read, "grant": seatbelt.Read, "read-only file": seatbelt.Read,
}

// seatbeltSteps translates the view mount by mount, in its order: a
// read-write bind is a read-write step, a read-only one what its part of
// the policy gives, a tmpfs that hides or holds a place hidden or not
// written, a remount read-only not written, a link its name alone. A
// mount of no known kind refuses the profile rather than being dropped.
func seatbeltSteps(ms []Mount) ([]seatbelt.Step, error) {
	var out []seatbelt.Step
	add := func(kind seatbelt.Kind, m Mount) {
		if n := len(out); n > 0 && out[n-1].Path == m.Dst && m.Op == "--remount-ro" &&
			(out[n-1].Kind == seatbelt.Hidden || out[n-1].Kind == seatbelt.NoWrite) {
			return // the tmpfs before it already says so
		}
		out = append(out, seatbelt.Step{Path: m.Dst, Kind: kind, Why: m.Why})
	}
	for _, m := range ms {
		kind, known := seatbelt.Kind(0), true
		switch {
		case slices.Contains(seatbeltSkipped, m.Why):
			continue
		case (m.Op == "--bind" || m.Op == "--bind-try") && m.Why == "ssh agent":
			kind = seatbelt.Socket
		case m.Op == "--bind" || m.Op == "--bind-try":
			kind = seatbelt.ReadWrite
		case m.Op == "--ro-bind" || m.Op == "--ro-bind-try":
			kind, known = seatbeltRO[m.Why]
		case m.Op == "--tmpfs" && m.Why == "hidden":
			kind = seatbelt.Hidden
		case m.Op == "--tmpfs" && m.Why == "protected (empty)", m.Op == "--remount-ro":
			kind = seatbelt.NoWrite
		case m.Op == "--symlink":
			kind = seatbelt.Names
		default:
			known = false
		}
		if !known {
			return nil, fmt.Errorf("prepare the sandbox: no Seatbelt rule for the mount %s %s (%s)", m.Op, m.Dst, m.Why)
		}
		add(kind, m)
	}
	return out, nil
}
