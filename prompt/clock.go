package prompt

import (
	"fmt"
	"time"

	"pathgrant/wire"
)

// The window shows one clock, the agent's: how long it still waits for
// the person. The request's own expiry is the daemon's business (a
// request the agent no longer waits for stays approvable for its next
// try), so two countdowns would only ask the person which one counts.

// DurationWords says d as a person reads it: seconds below 90 s, whole
// minutes (rounded) below 90 minutes, then hours and minutes: "48 s",
// "5 min", "2 h 10 min". A countdown in minutes does not flicker through
// "297 s".
func DurationWords(d time.Duration) string {
	secs := int((d + time.Second/2) / time.Second)
	switch {
	case secs < 0:
		return "0 s"
	case secs < 90:
		return fmt.Sprintf("%d s", secs)
	}
	mins := (secs + 30) / 60
	if mins < 90 {
		return fmt.Sprintf("%d min", mins)
	}
	if mins%60 == 0 {
		return fmt.Sprintf("%d h", mins/60)
	}
	return fmt.Sprintf("%d h %d min", mins/60, mins%60)
}

// WaitingText is the one clock the window shows: the agent's. While
// calls wait it says when the agent stops waiting (and how many calls
// wait, when more than one); then that the agent gave up and that an
// approval serves its next try.
func WaitingText(r wire.Request, now time.Time) string {
	name := AgentName(r.Agent)
	if r.Waiting == 0 || !now.Before(r.WaitUntil) {
		return name + " stopped waiting; approving lets its next try through"
	}
	s := name + " stops waiting in " + DurationWords(r.WaitUntil.Sub(now))
	if r.Waiting > 1 {
		s += fmt.Sprintf(" (%d calls wait)", r.Waiting)
	}
	return s
}

// EndedText says, in place of the choices, that r ended undecided and
// why (wire.Request.Ended, the daemon's words): nothing is left to
// decide.
func EndedText(r wire.Request) string {
	why := wire.Printable(r.Ended)
	if why == "" {
		return "This request ended before you decided. Nothing waits for it any more."
	}
	return upperFirst(trimStop(why)) + ". Nothing waits for this any more."
}
