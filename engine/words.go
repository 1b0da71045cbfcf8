package engine

import (
	"strings"

	"pathgrant/guard"
	"pathgrant/wire"
)

// What the model reads when a call waits on the person. An agent acts
// on words alone, so each says what happened, what the person must do
// and where, and whether to retry: "approval pending: retry after
// approving" left a model retrying at once, never telling the person
// that a window waited for them, nor which file it was about. The
// hook prefixes "pathgrant: "; the guard's own reasons (why a call is
// not eligible) and the remembered denials' (denials.go) are theirs.

// whereAsked is where the person answers a request.
const whereAsked = "in pathgrant's window (or with `pathgrant approve` in a terminal)"

// deniedOnceReason is what a call that waited on the person's one-shot
// denial is told.
const deniedOnceReason = "denied by the person in pathgrant's window: do not retry it unless they ask you to"

// pendingReason is what a call is told when its read is asked of the
// person and no decision came while it waited (waited), or it did not
// wait at all.
func pendingReason(home string, ans wire.Answer, waited bool) string {
	asked := "they were asked " + whereAsked
	if waited {
		asked += " and have not answered yet"
	}
	return accessWords(home, ans.Op, ans.Path) + " needs the person's approval: " + asked + "; wait for them, then retry once"
}

// pausedReason is what a call is told whose read could be approved, but
// the person paused pathgrant's prompts: nobody was asked, so nothing
// can be approved until they resume.
func pausedReason(home string, op guard.Op, path string) string {
	return accessWords(home, op, path) + " needs the person's approval, but they paused pathgrant's approval prompts, so nobody was asked: " +
		"denied; tell the person (they resume prompts from pathgrant's tray menu) and retry once they have"
}

// crowdedReason is what a call is told whose read could be approved, but
// too many requests already wait for the person (why, the queue's
// words).
func crowdedReason(home string, op guard.Op, path, why string) string {
	return accessWords(home, op, path) + " needs the person's approval, but nobody was asked: " + why +
		"; denied: wait for the person to answer those " + whereAsked + ", then retry once"
}

// endedUndecidedReason is what a call is told that waited on a request
// which ended undecided for a reason of its own (Request.Ended): the
// command it was raised for is gone.
func endedUndecidedReason(home string, r wire.Request) string {
	return "the request for " + accessWords(home, r.Op, r.Path) + " ended without a decision (" + r.Ended + "): retry once to ask the person again"
}

// accessWords names an access as the model reads it: "reading
// ~/Downloads/report.csv".
func accessWords(home string, op guard.Op, path string) string {
	verb := "reading"
	if op != "" && op != guard.OpRead {
		verb = string(op) + " of"
	}
	return verb + " " + tildePath(home, wire.Printable(path))
}

// tildePath writes a path under home as ~/..., as the model itself
// mostly names it.
func tildePath(home, p string) string {
	if home == "" || home == "/" {
		return p
	}
	if p == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, strings.TrimSuffix(home, "/")+"/"); ok {
		return "~/" + rest
	}
	return p
}
