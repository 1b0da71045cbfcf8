package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"pathgrant/appdirs"
	"pathgrant/guard"
)

// rootPlace is a folder a root seldom lies in, and what it means when
// one does.
type rootPlace struct {
	dir, status, means string
}

// privateMeans is what a root beneath one of the view's private roots
// (sandbox.PrivateRoots) means for confined commands.
const privateMeans = "confined commands see their own empty %[1]s over it, and where something bound beneath needs the rules to hold it " +
	"(Downloads, read only through the person; a protected name the view cannot pin, such as a linked .claude) " +
	"their %[1]s gets no rule at all: nothing can be made at its top, and temporary files go to TMPDIR, the session's own"

// rootPlaces are the unusual places doctor names, on Linux.
var rootPlaces = []rootPlace{
	{"/tmp", doctorWarn, fmt.Sprintf(privateMeans, "/tmp") + "; every user shares /tmp, and a reboot may empty it"},
	{"/dev/shm", doctorWarn, fmt.Sprintf(privateMeans, "/dev/shm") + "; it is memory, emptied at every boot"},
	{"/var/tmp", doctorInfo, "every user shares it (a folder on the way may be another's); it survives reboots"},
	{"/run", doctorInfo, "it is memory, emptied at every boot, and the runtime folders there are hidden from confined commands but for what is bound inside"},
}

// rootPlaceChecks say, on Linux, where a root lies somewhere unusual: the
// home folder and the device policy's eligible roots, device-wide, and
// the workspace roots of each live session the daemon holds (asked only
// when it is up; an agent's doctor is refused the list, and says
// nothing of them). One line for each root found in such a place;
// nothing when there is none.
func rootPlaceChecks(env doctorEnv, socket string, daemonUp bool) []doctorCheck {
	if env.GOOS == "darwin" {
		return nil // no private /tmp there: Seatbelt neither reads nor writes it
	}
	type root struct{ what, path string }
	var roots []root
	if home, err := appdirs.Home(env.Getenv); err == nil {
		roots = append(roots, root{"the home folder", home})
	}
	if p, _, err := deviceFileOf(env); err == nil {
		for _, r := range p.EligibleReadOnly {
			roots = append(roots, root{"eligible root", r})
		}
	}
	if daemonUp && env.Sessions != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		ss, _ := env.Sessions(ctx, socket)
		for _, s := range ss {
			for _, w := range s.Workspace {
				if s.Ended.IsZero() {
					roots = append(roots, root{"session " + s.ID + "'s workspace", w})
				}
			}
		}
	}
	var out []doctorCheck
	for _, r := range roots {
		if c, ok := rootPlaceCheck(r.what, filepath.Clean(r.path)); ok {
			out = append(out, c)
		}
	}
	return out
}

// rootPlaceCheck is the line for one root, when it lies in an unusual
// place.
func rootPlaceCheck(what, path string) (doctorCheck, bool) {
	for _, p := range rootPlaces {
		if guard.Within(p.dir, path) {
			return doctorCheck{Name: "root place", Status: p.status, Detail: fmt.Sprintf("%s %s lies in %s: %s", what, path, p.dir, p.means)}, true
		}
	}
	return doctorCheck{}, false
}
