package ipc

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/sandbox/launch"
	"pathgrant/wire"
)

// holdEnv is a daemon whose prepared commands hold their opens under
// Downloads, and one such command prepared.
type holdEnv struct {
	*capEnv
	command string
	p       wire.Prepared
}

func newHoldEnv(t *testing.T) *holdEnv {
	t.Helper()
	ce := newCapEnv(t)
	ce.launcher.hold = []string{ce.dl}
	const command = "python3 read.py"
	p, st := ce.prepare(t, ce.hookCheck(t, command).Exec.Capability, command, "")
	if st != http.StatusOK || p.Hold == nil || p.Hold.Ticket == "" || p.Hold.Ticket == p.Ticket {
		t.Fatalf("prepare: %d, hold %+v: want a hold ticket of its own", st, p.Hold)
	}
	return &holdEnv{capEnv: ce, command: command, p: p}
}

// hold presents the command's hold ticket for path (for command, when
// given) and returns the answer and the status.
func (he *holdEnv) hold(ctx context.Context, t *testing.T, path, command string) (wire.HoldAnswer, int) {
	t.Helper()
	if command == "" {
		command = he.command
	}
	var out wire.HoldAnswer
	hdr := map[string]string{wire.HeaderCapability: he.p.Hold.Ticket, wire.HeaderCommandHash: launch.CommandHash(command)}
	st, data := sendCtx(ctx, t, rawClient(he.sock), http.MethodPost, wire.PathHold, hdr, wire.HoldRequest{Path: path, Program: "python3 read.py"})
	if st == http.StatusOK {
		decodeInto(t, data, &out)
	}
	return out, st
}

func decodeInto(t *testing.T, data []byte, out any) {
	t.Helper()
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

// decideWhenAsked decides the first pending request once it appears.
func (he *holdEnv) decideWhenAsked(t *testing.T, d wire.Decision) <-chan wire.Request {
	decided := make(chan wire.Request, 1)
	go func() {
		for range 200 {
			if p := he.srv.Engine().Pending(); len(p) == 1 && p[0].Waiting == 1 {
				r, err := he.srv.Engine().Decide(p[0].ID, d)
				if err != nil {
					t.Errorf("decide: %v", err)
				}
				decided <- r
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Error("no request waited")
		decided <- wire.Request{}
	}()
	return decided
}

// TestExecHold: the hold ticket asks, for its command, to read a file
// under its approvable roots, waiting for the person: approved, the answer
// names the path; denied, it carries one refusal line and no grant. The
// request says the command is paused and which program opened the file.
func TestExecHold(t *testing.T) {
	ctx := context.Background()
	t.Run("approved once, then asked again", func(t *testing.T) {
		he := newHoldEnv(t)
		path := he.dl + "/report.csv"
		decided := he.decideWhenAsked(t, wire.Decision{Scope: "once"})
		ans, st := he.hold(ctx, t, path, "")
		r := <-decided
		if st != http.StatusOK || !ans.Allowed || ans.Path != path {
			t.Fatalf("hold: %d %+v; want allowed for %s", st, ans, path)
		}
		if r.Held != "python3 read.py" || r.Tool == "" {
			t.Errorf("the request %+v does not say the command is paused in python3 read.py", r)
		}
		decided = he.decideWhenAsked(t, wire.Decision{Scope: "deny"})
		ans, st = he.hold(ctx, t, path, "")
		<-decided
		if st != http.StatusOK || ans.Allowed || !strings.Contains(ans.Line, path) {
			t.Errorf("after the once grant: %d %+v; want a second request, denied, with its line", st, ans)
		}
	})
	t.Run("denied", func(t *testing.T) {
		he := newHoldEnv(t)
		decided := he.decideWhenAsked(t, wire.Decision{Scope: "deny"})
		ans, st := he.hold(ctx, t, he.dl+"/report.csv", "")
		<-decided
		if st != http.StatusOK || ans.Allowed || !strings.Contains(ans.Line, "refused") {
			t.Errorf("hold: %d %+v; want refused with a line", st, ans)
		}
		if gs, _ := he.store.List(grants.Filter{Session: he.p.Session}); len(gs) != 0 {
			t.Errorf("grants %+v after a denial", gs)
		}
	})
	t.Run("interrupted: no request left", func(t *testing.T) {
		he := newHoldEnv(t)
		ctx, cancel := context.WithCancel(ctx)
		go func() {
			for range 200 {
				if p := he.srv.Engine().Pending(); len(p) == 1 && p[0].Waiting == 1 {
					cancel()
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
		he.hold(ctx, t, he.dl+"/report.csv", "")
		deadline := time.Now().Add(time.Second)
		for len(he.srv.Engine().Pending()) != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if p := he.srv.Engine().Pending(); len(p) != 0 {
			t.Errorf("pending after the interrupt: %+v", p)
		}
	})
	// Each refusal raises nothing; presented to another route, the ticket
	// is spent (a probe with a path it may not name then finds it gone).
	refusals := []struct {
		name   string
		status int
		spent  bool
		use    func(t *testing.T, he *holdEnv) int
	}{
		{"outside the roots", http.StatusBadRequest, false, func(t *testing.T, he *holdEnv) int {
			_, st := he.hold(ctx, t, he.home+"/.ssh/id_rsa", "")
			return st
		}},
		{"not clean", http.StatusBadRequest, false, func(t *testing.T, he *holdEnv) int {
			_, st := he.hold(ctx, t, he.dl+"/../.ssh/id_rsa", "")
			return st
		}},
		{"for another command", http.StatusForbidden, true, func(t *testing.T, he *holdEnv) int {
			_, st := he.hold(ctx, t, he.dl+"/report.csv", "cat x")
			return st
		}},
		{"as an exec capability", http.StatusForbidden, true, func(t *testing.T, he *holdEnv) int {
			_, st := he.prepare(t, he.p.Hold.Ticket, he.command, "")
			return st
		}},
		{"as a report ticket", http.StatusForbidden, true, func(t *testing.T, he *holdEnv) int {
			_, st := he.report(t, he.p.Hold.Ticket, he.command, "cat: /x: Permission denied")
			return st
		}},
		{"for a check", http.StatusBadRequest, true, func(t *testing.T, he *holdEnv) int {
			return he.capCall(t, http.MethodPost, "/v1/check", he.p.Hold.Ticket, he.command, "",
				wire.CheckRequest{SessionID: he.p.Session, Op: "read", Path: he.dl + "/report.csv"}, nil)
		}},
		{"from another process than the front end it was issued to", http.StatusForbidden, true, func(t *testing.T, he *holdEnv) int {
			other := append([]engine.LineageEntry{{Proc: engine.Proc{PID: 4002, Start: 1}, Comm: "python3"}}, agentLineage[1:]...)
			he.as(other)
			defer he.as(agentLineage)
			_, st := he.hold(ctx, t, he.dl+"/report.csv", "")
			return st
		}},
		{"for a decision: the person route reads no ticket", http.StatusForbidden, false, func(t *testing.T, he *holdEnv) int {
			return he.capCall(t, http.MethodPost, "/v1/requests/x/decision", he.p.Hold.Ticket, he.command, "", wire.Decision{Scope: "once"}, nil)
		}},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			he := newHoldEnv(t)
			if st := tt.use(t, he); st != tt.status {
				t.Fatalf("got %d; want %d", st, tt.status)
			}
			if len(he.srv.Engine().Pending()) != 0 {
				t.Errorf("a request was raised: %+v", he.srv.Engine().Pending())
			}
			want := http.StatusBadRequest
			if tt.spent {
				want = http.StatusForbidden
			}
			if _, st := he.hold(ctx, t, he.dl+"/../x", ""); st != want {
				t.Errorf("the ticket afterwards: %d; want %d (spent %v)", st, want, tt.spent)
			}
		})
	}
	t.Run("without a ticket", func(t *testing.T) {
		he := newHoldEnv(t)
		c := apiclient.New(he.sock)
		c.Session = he.p.Session
		err := c.Do(ctx, http.MethodPost, wire.PathHold, wire.HoldRequest{Path: he.dl + "/report.csv"}, nil)
		if statusOf(err) != http.StatusBadRequest {
			t.Errorf("POST %s with a session id and no ticket: %v; want 400", wire.PathHold, err)
		}
	})
}
