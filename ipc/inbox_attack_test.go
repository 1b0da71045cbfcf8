package ipc

// What someone with the agent's keyboard tried against the approval inbox
// (a decision answering every waiting call, remembered denials, refusal
// counts): each TestAttack* is one attempt, and passes while it fails.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/tools"
	"pathgrant/wire"
)

func heapNow() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestAttackRefusalKeysRetainCallerSizedTool: the refusal counts
// (engine/refusals.go) key on the caller's tool name as sent, unbounded:
// an agent sends 256 unmapped checks, each naming a distinct ~60 KiB tool,
// and the daemon keeps ~15 MiB for that one session until it ends. The
// audit record bounds Tool to 128 runes; the in-memory key does not. With
// the session caps (128 per process, 1,024 per user) that is GiBs.
func TestAttackRefusalKeysRetainCallerSizedTool(t *testing.T) {
	e := newTestEnv(t)
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
	pad := strings.Repeat("T", 60_000)
	before := heapNow()
	for i := range 256 {
		req := wire.CheckRequest{Tool: fmt.Sprintf("%04d", i) + pad, Unmapped: true}
		if _, err := c.Check(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	grew := int64(heapNow()) - int64(before)
	t.Logf("heap grew %d KiB after 256 refused unmapped checks", grew/1024)
	if grew > 4<<20 {
		t.Fatalf("one session's refused checks keep %d MiB in the daemon: the refusal key holds the caller's tool name unbounded", grew>>20)
	}
}

// TestAttackRefusalKeysRetainHugeToolRoutePath: a tool route body may be
// 4 MiB, and the guard appends components under a missing folder without
// a bound, so a read_file of a path outside the policy under a missing
// folder is refused with a megabyte-long ans.Path, which the refusal key
// keeps: 256 of 4 MiB are ~1 GiB per session. Here 16 × 256 KiB.
func TestAttackRefusalKeysRetainHugeToolRoutePath(t *testing.T) {
	e := newTestEnv(t)
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
	comp := strings.Repeat("a", 200) + "/"
	long := strings.Repeat(comp, (256<<10)/len(comp))
	before := heapNow()
	for i := range 16 {
		raw, _ := json.Marshal(map[string]any{"path": fmt.Sprintf("%s/missing%d/%s", e.home+"/secret", i, long)})
		res, err := c.Tool(context.Background(), tools.ReadFile, wire.ToolRequest{Args: raw})
		if statusOf(err) == 400 && strings.Contains(err.Error(), "PATH_MAX") {
			continue // refused before anything is kept
		}
		if err != nil {
			t.Fatal(err)
		}
		if res.Decision == guard.Allow {
			t.Fatalf("allowed: %+v", res)
		}
	}
	grew := int64(heapNow()) - int64(before)
	t.Logf("heap grew %d KiB after 16 refused 256 KiB-path tool calls", grew/1024)
	if grew > 1<<20 {
		t.Fatalf("16 refused tool calls keep %d MiB in the daemon: the refusal key holds the refused path unbounded", grew>>20)
	}
}

// TestAttackRefusalAuditBlindedByJunk: the bound of 256 distinct
// refusals per session is first come, first kept: an agent fills it with
// junk (unmapped checks naming made-up tools), and its probing of
// ~/.ssh afterwards leaves no refuse record at all.
func TestAttackRefusalAuditBlindedByJunk(t *testing.T) {
	e := newTestEnv(t)
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
	for i := range 260 {
		if _, err := c.Check(context.Background(), wire.CheckRequest{Tool: fmt.Sprintf("junk%d", i), Unmapped: true}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"/.ssh/id_ed25519", "/.aws/credentials", "/.gnupg/private-keys-v1.d/k.key"} {
		ans, err := c.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: e.home + p, Tool: "Read"})
		if err != nil || ans.Decision != guard.Deny {
			t.Fatalf("%+v %v", ans, err)
		}
	}
	recs, err := e.store.AuditRecords(grants.AuditFilter{Kind: grants.KindRefuse})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if strings.Contains(r.Path, "/.ssh/") {
			return
		}
	}
	t.Fatalf("the agent read-probed ~/.ssh, ~/.aws, ~/.gnupg after 260 junk refusals: no refuse record of it (%d records, all junk)", len(recs))
}

// TestAttackOnceGrantServesACallThatDidNotWait: "a decision answers every
// call waiting ... the once grant is spent by the decision, not by the
// first call". It is not: the decision only Puts the grant, and the first
// call to evaluate spends it. A waiter whose evaluation is slow (a long
// command that reads the file many times) loses the race to a fresh call
// the agent sends once it sees the decision; that fresh call spends the
// grant, and the waiter is then served anyway with the grant "in hand"
// (reevaluate). The person approved once, with one call waiting: two
// calls are allowed.
func TestAttackOnceGrantServesACallThatDidNotWait(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kind  guard.GrantKind
		fresh func(e *testEnv) wire.CheckRequest
	}{
		// the same read, a second time
		{"same file", "", func(e *testEnv) wire.CheckRequest {
			return wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/report.csv"}
		}},
		// once for the folder, to let the waiting `cat report.csv` run: a
		// fresh command the person never saw reads another file and the whole folder
		{"folder, another command", guard.KindFolder, func(e *testEnv) wire.CheckRequest {
			return wire.CheckRequest{Command: "cat ~/Downloads/other.csv && grep -r x ~/Downloads"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			s := e.register(wire.SessionRequest{Agent: "claude"})
			waiterC, freshC := e.clientFor(s), e.clientFor(s)
			// warm the fresh caller's connection
			if _, err := freshC.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: e.work + "/main.go"}); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var waited wire.Answer
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				waited, err = waiterC.Check(context.Background(), wire.CheckRequest{Command: slowCommand(), WaitMS: 30_000})
				if err != nil {
					t.Error(err)
				}
			}()
			r := e.waitWaiting(1)
			if _, err := e.srv.Engine().Decide(r.ID, wire.Decision{Scope: "once", Kind: tc.kind}); err != nil {
				t.Fatal(err)
			}
			fresh, err := freshC.Check(context.Background(), tc.fresh(e))
			if err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			t.Logf("waiter %s (%s); fresh call %s (%s)", waited.Decision, waited.Reason, fresh.Decision, fresh.Reason)
			if waited.Decision == guard.Allow && fresh.Decision == guard.Allow {
				t.Fatal("one once approval with one waiting call allowed the waiter and a fresh call that never waited")
			}
		})
	}
}

// rememberDeny makes the person deny read of the Downloads report for
// session c's session, remembered.
func rememberDeny(t *testing.T, e *testEnv, pending string) {
	t.Helper()
	if _, err := e.srv.Engine().Decide(pending, wire.Decision{Scope: "deny", Remember: true}); err != nil {
		t.Fatal(err)
	}
}

// TestAttackRememberedDenialEscapedByChildSession: "Deny for this
// session" is keyed on the session id alone. The agent that was told "do
// not retry" registers a child of its own session (its token is enough)
// and asks again: a new prompt for the same access the person just denied
// for the session.
func TestAttackRememberedDenialEscapedByChildSession(t *testing.T) {
	e := newTestEnv(t)
	parent := e.register(wire.SessionRequest{Agent: "claude"})
	pc := e.clientFor(parent)
	read := wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/report.csv"}
	ans, _ := pc.Check(context.Background(), read)
	rememberDeny(t, e, ans.Pending)
	if ans, _ := pc.Check(context.Background(), read); ans.Pending != "" {
		t.Fatalf("the session itself asks again: %+v", ans)
	}
	shown := e.approver.shown.Load()
	child, err := pc.Register(context.Background(), wire.SessionRequest{Parent: parent.ID, Cwd: e.work, Workspace: []string{e.work}})
	if err != nil {
		t.Fatal(err)
	}
	ca, err := e.clientFor(child).Check(context.Background(), read)
	if err != nil {
		t.Fatal(err)
	}
	if ca.Pending != "" || e.approver.shown.Load() != shown {
		t.Fatalf("a child of the session that was told 'do not retry' opened a new prompt for the denied access: %+v", ca)
	}
}

// TestAttackRememberedDenialEscapedByNewClientSession: a hook-only
// session's remembered denial is escaped by the same agent process naming
// a new client_session: a fresh hook-only session, a fresh prompt.
func TestAttackRememberedDenialEscapedByNewClientSession(t *testing.T) {
	e := newTestEnv(t)
	read := func(client string) wire.CheckRequest {
		return wire.CheckRequest{ClientSession: client, Cwd: e.work, Agent: "claude", Op: guard.OpRead, Path: e.dl + "/report.csv"}
	}
	ans, err := e.client.Check(context.Background(), read("conv-1"))
	if err != nil || ans.Pending == "" {
		t.Fatalf("%+v %v", ans, err)
	}
	rememberDeny(t, e, ans.Pending)
	if ans, _ := e.client.Check(context.Background(), read("conv-1")); ans.Pending != "" {
		t.Fatalf("the session itself asks again: %+v", ans)
	}
	shown := e.approver.shown.Load()
	again, err := e.client.Check(context.Background(), read("conv-2"))
	if err != nil {
		t.Fatal(err)
	}
	if again.Pending != "" || e.approver.shown.Load() != shown {
		t.Fatalf("the same agent process, naming a new client session, opened a new prompt for the access the person denied for its session: %+v", again)
	}
}

// shiftClock is a Config.Now that a test moves forward.
type shiftClock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *shiftClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *shiftClock) advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

// waitForgotten polls until the registry no longer holds session id.
func waitForgotten(t *testing.T, e *testEnv, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		held := false
		for _, s := range e.srv.Engine().Sessions() {
			held = held || s.ID == id
		}
		if !held {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("session %s never dropped", id)
}

// TestAttackExpiredSessionKeepsItsDenials: remembered denials "end with
// the session" only when the session is ended (endLocked). A session
// that reaches its max age is dropped by dropGone without endLocked, so
// its denials stay in the daemon, listed to the person, for as long as
// the daemon runs.
func TestAttackExpiredSessionKeepsItsDenials(t *testing.T) {
	clk := &shiftClock{}
	e := newTestEnv(t, func(c *Config) { c.Now = clk.now; c.SessionMaxAge = time.Hour })
	s := e.register(wire.SessionRequest{Agent: "claude"})
	ans, err := e.clientFor(s).Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/report.csv"})
	if err != nil || ans.Pending == "" {
		t.Fatalf("%+v %v", ans, err)
	}
	rememberDeny(t, e, ans.Pending)
	clk.advance(2 * time.Hour) // past the max age and GoneGrace
	waitForgotten(t, e, s.ID)
	for _, d := range e.srv.Engine().Denials() {
		if d.Session == s.ID {
			t.Fatalf("session %s expired and was dropped, but its remembered denial %s is still held and listed", s.ID, d.ID)
		}
	}
}

// TestAttackExpiredSessionKeepsItsRefusals: the same for the refusal
// counts, which an agent fills (TestAttackRefusalKeysRetainCallerSizedTool):
// a session that expires instead of ending leaves them in memory for
// good, so the leak is not even bounded by the live-session caps.
func TestAttackExpiredSessionKeepsItsRefusals(t *testing.T) {
	clk := &shiftClock{}
	e := newTestEnv(t, func(c *Config) { c.Now = clk.now; c.SessionMaxAge = time.Hour })
	s := e.register(wire.SessionRequest{Agent: "claude"})
	c := e.clientFor(s)
	pad := strings.Repeat("T", 60_000)
	before := heapNow()
	for i := range 128 {
		if _, err := c.Check(context.Background(), wire.CheckRequest{Tool: fmt.Sprintf("%04d", i) + pad, Unmapped: true}); err != nil {
			t.Fatal(err)
		}
	}
	clk.advance(2 * time.Hour)
	waitForgotten(t, e, s.ID)
	c.CloseIdle()
	grew := int64(heapNow()) - int64(before)
	t.Logf("heap %d KiB above the start after the session was dropped", grew/1024)
	if grew > 2<<20 {
		t.Fatalf("session %s expired and was dropped, but its refusal counts (%d MiB) are still held", s.ID, grew>>20)
	}
}

// slowCommand reads the Downloads report first, then thousands of
// workspace names: the guard takes ~100 ms to judge it, so a call
// carrying it evaluates long after a plain read.
func slowCommand() string {
	var b strings.Builder
	b.WriteString("cat ../Downloads/report.csv")
	for i := range 5000 {
		fmt.Fprintf(&b, " f%d", i)
	}
	return b.String()
}

// TestAttackDecidedOnceGrantSkipsIdentityCheck: a grant is bound to the
// file it was approved for (its identity); a grant whose path was replaced
// serves nothing and is invalidated (the "session" case shows it). The
// decided once grant "in hand" (engine/wait.go withDecided) is matched by
// path alone: once the first waiter spent it, the file is replaced (a new
// inode at the same path), and the other waiter is still allowed, to read
// a file the person never approved.
func TestAttackDecidedOnceGrantSkipsIdentityCheck(t *testing.T) {
	for _, scope := range []string{"session", "once"} {
		t.Run(scope, func(t *testing.T) {
			e := newTestEnv(t)
			s := e.register(wire.SessionRequest{Agent: "claude"})
			fastC, slowC := e.clientFor(s), e.clientFor(s)
			file := e.dl + "/report.csv"
			var wg sync.WaitGroup
			var fast, slowAns wire.Answer
			fastDone := make(chan struct{})
			wg.Add(2)
			go func() {
				defer wg.Done()
				slowAns, _ = slowC.Check(context.Background(), wire.CheckRequest{Command: slowCommand(), WaitMS: 30_000})
			}()
			e.waitWaiting(1)
			go func() {
				defer wg.Done()
				defer close(fastDone)
				fast, _ = fastC.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: file, WaitMS: 30_000})
			}()
			r := e.waitWaiting(2)
			if _, err := e.srv.Engine().Decide(r.ID, wire.Decision{Scope: scope}); err != nil {
				t.Fatal(err)
			}
			<-fastDone // the first (fast) waiter was answered, the slow one still evaluates
			// the file the person approved is replaced by another one
			mustWrite(t, e.dl+"/swap.tmp", "SOMETHING ELSE\n")
			if err := os.Rename(e.dl+"/swap.tmp", file); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			t.Logf("fast %s (%s), slow %s (%s)", fast.Decision, fast.Reason, slowAns.Decision, slowAns.Reason)
			if fast.Decision != guard.Allow {
				t.Fatalf("the first waiter was not served: %+v", fast)
			}
			if slowAns.Decision == guard.Allow {
				t.Fatalf("%s: after the grant's file was replaced, a waiting call was still allowed to read the new file", scope)
			}
		})
	}
}

// TestHeldRememberedDenialSpellings: a remembered
// denial is matched on the guard's canonical path, so no other spelling
// of the same file (trailing slash, ~, relative, dot segments, doubled
// slashes, a symlink in the workspace, /proc/self/root, a shell command)
// asks again.
func TestHeldRememberedDenialSpellings(t *testing.T) {
	e := newTestEnv(t)
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
	file := e.dl + "/report.csv"
	if err := os.Symlink(file, e.work+"/link.csv"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(e.dl, e.work+"/dl"); err != nil {
		t.Fatal(err)
	}
	ans, err := c.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: file})
	if err != nil || ans.Pending == "" {
		t.Fatalf("%+v %v", ans, err)
	}
	rememberDeny(t, e, ans.Pending)
	shown := e.approver.shown.Load()
	for _, req := range []wire.CheckRequest{
		{Op: guard.OpRead, Path: file + "/"},
		{Op: guard.OpRead, Path: "~/Downloads/report.csv"},
		{Op: guard.OpRead, Path: "../Downloads/report.csv"},
		{Op: guard.OpRead, Path: e.dl + "/./x/../report.csv"},
		{Op: guard.OpRead, Path: strings.ReplaceAll(file, "/", "//")},
		{Op: guard.OpRead, Path: e.work + "/link.csv"},
		{Op: guard.OpRead, Path: e.work + "/dl/report.csv"},
		{Op: guard.OpRead, Path: "/proc/self/root" + file},
		{Command: "cat link.csv"},
		{Command: "cd dl && cat report.csv"},
		{Command: "cat ~/Downloads/report.csv | wc -l"},
	} {
		ans, err := c.Check(context.Background(), req)
		if err != nil {
			t.Logf("%+v: %v", req, err)
			continue
		}
		if ans.Decision == guard.Allow || ans.Pending != "" {
			t.Errorf("%+v: %+v", req, ans)
		}
	}
	if e.approver.shown.Load() != shown {
		t.Errorf("another spelling opened a prompt")
	}
}

// stallingApprover stalls the next Update (engine.Updater) it is armed
// for: the window, real in any schedule, between a repeat call's offer
// (counted on the pending request) and its join of the waiting calls.
type stallingApprover struct {
	recordingApprover
	mu      sync.Mutex
	armed   bool
	entered chan struct{}
	release chan struct{}
}

func (a *stallingApprover) Update(wire.Request) {
	a.mu.Lock()
	armed := a.armed
	a.armed = false
	a.mu.Unlock()
	if armed {
		close(a.entered)
		<-a.release
	}
}

// TestAttackLateJoinerServedByOnce: a once approval answers exactly the
// calls waiting when it is made, and says how many. A call raised while
// the prompt's update for it is still on its way (stalled here) waits
// from the moment it was counted, so it is one of them and the decision
// reports two; no call is answered that the decision did not count, and
// a call after the decision is not served by the spent grant. (Before
// the call joined in the same step as its count, it slipped in after the
// decision and was served by the spent once grant "in hand", with the
// decision reporting one call answered.)
func TestAttackLateJoinerServedByOnce(t *testing.T) {
	a := &stallingApprover{entered: make(chan struct{}), release: make(chan struct{})}
	e := newTestEnv(t, func(c *Config) { c.Approver = a })
	s := e.register(wire.SessionRequest{Agent: "claude"})
	read := wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/report.csv", WaitMS: 30_000}
	var wg sync.WaitGroup
	var first, late wire.Answer
	wg.Add(1)
	go func() { defer wg.Done(); first, _ = e.clientFor(s).Check(context.Background(), read) }()
	r := e.waitWaiting(1)
	a.mu.Lock()
	a.armed = true
	a.mu.Unlock()
	wg.Add(1)
	go func() { defer wg.Done(); late, _ = e.clientFor(s).Check(context.Background(), read) }()
	<-a.entered // the late call is counted; the prompt has not heard of it
	done, err := e.srv.Engine().Decide(r.ID, wire.Decision{Scope: "once"})
	if err != nil {
		t.Fatal(err)
	}
	close(a.release)
	wg.Wait()
	allowed := 0
	for _, ans := range []wire.Answer{first, late} {
		if ans.Decision == guard.Allow {
			allowed++
		}
	}
	t.Logf("decided %s answering %d; first %s, late %s", done.State, done.Waiting, first.Decision, late.Decision)
	if allowed != done.Waiting {
		t.Fatalf("the once approval reported %d calls answered and allowed %d", done.Waiting, allowed)
	}
	read.WaitMS = 0
	if after, err := e.clientFor(s).Check(context.Background(), read); err != nil || after.Decision == guard.Allow {
		t.Fatalf("a call after the decision: %+v %v; want it asked again, not served by the spent grant", after, err)
	}
}
