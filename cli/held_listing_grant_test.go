package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"pathgrant/tools"
	"pathgrant/wire"
)

// TestDoorWalkHeldListingGrant: the person approves, for the session,
// listing a Downloads folder (what a held listing asks: a read of the
// folder, kind file). A later command of the session that reads a file in
// that folder is asked (and denied here) through every door, in both
// modes: a listing approved is no more than the listing.
func TestDoorWalkHeldListingGrant(t *testing.T) {
	for _, mode := range holdModes() {
		for _, top := range []bool{false, true} {
			name := mode.name + map[bool]string{false: " sub", true: " Downloads itself"}[top]
			t.Run(name, func(t *testing.T) {
				w := newHeldWalk(t, mode)
				folder := w.dl + "/sub"
				if top {
					folder = w.dl
				}
				writeExecFile(t, w.dl+"/sub/secret-in-sub.txt", "SECRET-CONTENT\n")
				// 1. list the folder; the person approves the listing for the session
				decided := make(chan wire.Request, 1)
				go func() {
					deadline := time.Now().Add(60 * time.Second)
					for time.Now().Before(deadline) {
						for _, r := range w.srv.Engine().Pending() {
							if r.Path == folder && r.Waiting > 0 {
								if _, err := w.srv.Engine().Decide(r.ID, wire.Decision{Scope: "session"}); err != nil {
									t.Errorf("approve %s: %v", r.ID, err)
								}
								decided <- r
								return
							}
						}
						time.Sleep(20 * time.Millisecond)
					}
					decided <- wire.Request{}
				}()
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				got := toolWalked(w.srv.Engine().RunTool(ctx, w.sess.ID, tools.ExecuteShellCommand, shellArgs(w.script(t, "ls "+folder))))
				if r := <-decided; r.ID == "" || !got.ran {
					t.Fatalf("the listing of %s was not held and approved: %s", folder, got.out)
				}
				// 2. read a file in it: asked, and denied
				file := w.dl + "/sub/secret-in-sub.txt"
				stop := w.denyWhenAsked(t, file)
				names, run := walkDoors(t)
				for _, door := range names {
					out := run[door](w, t, w.script(t, "cat "+file))
					if strings.Contains(out.out, "SECRET-CONTENT") {
						t.Errorf("%s: read %s with only a listing approved, no one asked: %s", door, file, out.out)
					}
				}
				stop(t)
			})
		}
	}
}
