package ipc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/devicepolicy"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/sandbox"
	"pathgrant/sandbox/launch"
	"pathgrant/wire"
)

// capEnv is a daemon on a machine that confines, with a clock the test
// moves and a device policy file the test switches.
type capEnv struct {
	*testEnv
	clock    atomic.Int64 // unix nanoseconds
	confine  atomic.Bool
	launcher *recordLauncher
}

// recordLauncher prepares nothing: it remembers the policy it was given,
// and keeps every path as outside the view. With hold set, the command's
// opens under those roots are held.
type recordLauncher struct {
	mu   sync.Mutex
	pol  wire.Policy
	hold []string
	// served, when set, are the roots the held-open file system serves
	// for each prepared command (sandbox.Launch.Served).
	served []string
	tokens int
}

func (l *recordLauncher) Launch(pol wire.Policy, _ devicepolicy.Policy, _ wire.ExecRequest) (sandbox.Launch, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pol = pol
	p := wire.Prepared{Level: "test"}
	if l.hold != nil {
		p.Hold = &wire.Hold{Roots: l.hold}
	}
	var served *sandbox.Served
	if l.served != nil {
		l.tokens++
		p.Bwrap, served = "/bin/sh", &sandbox.Served{Token: fmt.Sprintf("token-%d", l.tokens), Roots: l.served}
	}
	return sandbox.Launch{Prepared: p, Outside: func(paths []string) []string { return paths }, Served: served}, nil
}

func (l *recordLauncher) policy() wire.Policy {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pol
}

func newCapEnv(t *testing.T, opts ...func(*Config)) *capEnv {
	ce := &capEnv{launcher: &recordLauncher{}}
	ce.clock.Store(time.Now().UnixNano())
	ce.confine.Store(true)
	ce.testEnv = newTestEnv(t, func(c *Config) {
		c.Now = func() time.Time { return time.Unix(0, ce.clock.Load()) }
		c.Confinement = "bwrap+landlock"
		c.Launcher = ce.launcher
		home, eligible := c.Home, c.Device.EligibleReadOnly // read by the server from Serve on
		c.DeviceFile = func() devicepolicy.Policy {
			return devicepolicy.Policy{Confinement: ce.confine.Load(), Toolchains: []string{"/opt/tc"}, Caches: []string{home + "/.cache"},
				EligibleReadOnly: eligible}
		}
		for _, o := range opts {
			o(c)
		}
	})
	return ce
}

// hookCheck is a hook-only client's check of a shell command that asks
// for an exec capability for it.
func (ce *capEnv) hookCheck(t *testing.T, command string) wire.Answer {
	t.Helper()
	return ce.check(t, command, false)
}

// check is hookCheck, or with anyway the check of `pathgrant exec
// --session`, which asks for the capability whatever the guard says.
func (ce *capEnv) check(t *testing.T, command string, anyway bool) wire.Answer {
	t.Helper()
	ans, err := ce.client.Check(context.Background(), wire.CheckRequest{ClientSession: "claude-1", Cwd: ce.work, Agent: "claude",
		Tool: "Bash", Command: "cd -- " + ce.work + " && " + command, ExecCommand: command, ExecAnyway: anyway})
	if err != nil {
		t.Fatalf("check %q: %v", command, err)
	}
	return ans
}

// capCall sends in to method path presenting cap for command (and naming
// session in the header, if given), decodes a 200 answer into out, and
// returns the status.
func (ce *capEnv) capCall(t *testing.T, method, path, cap, command, session string, in, out any) int {
	t.Helper()
	hdr := map[string]string{wire.HeaderCapability: cap, wire.HeaderCommandHash: launch.CommandHash(command)}
	if session != "" {
		hdr[wire.HeaderSession] = session
	}
	st, data := send(t, rawClient(ce.sock), method, path, hdr, in)
	if st == http.StatusOK && out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return st
}

// prepare presents cap for command (naming session, if any) to POST
// /v1/exec, as a hook's rewritten command does.
func (ce *capEnv) prepare(t *testing.T, cap, command, session string) (wire.Prepared, int) {
	var p wire.Prepared
	st := ce.capCall(t, http.MethodPost, wire.PathExec, cap, command, session,
		wire.ExecRequest{Path: "/bin/bash", Argv: []string{"bash", "-c", command}}, &p)
	return p, st
}

// report presents ticket for command to POST /v1/exec/report.
func (ce *capEnv) report(t *testing.T, ticket, command string, lines ...string) ([]string, int) {
	var out wire.Report
	st := ce.capCall(t, http.MethodPost, wire.PathReport, ticket, command, "", wire.Report{Lines: lines}, &out)
	return out.Lines, st
}

func TestCapabilityIssued(t *testing.T) {
	tests := []struct {
		name        string
		command     string
		confine     bool
		wantConfine bool
		wantLevel   wire.Level
		wantCap     bool
		anyway      bool
	}{
		{"allowed, confined", "ls", true, true, "bwrap+landlock", true, false},
		{"denied: no capability", "cat " + "/etc/shadow-none", true, true, "bwrap+landlock", false, false},
		{"confinement off", "ls", false, false, wire.LevelOff, false, false},
		{"denied, exec anyway: the kernel confines it", "cat " + "/etc/shadow-none", true, true, "bwrap+landlock", true, true},
		{"confinement off, exec anyway: the Launcher says how", "ls", false, false, wire.LevelOff, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ce := newCapEnv(t)
			ce.confine.Store(tt.confine)
			ans := ce.check(t, tt.command, tt.anyway)
			if ans.Exec == nil {
				t.Fatalf("answer %+v has no exec info", ans)
			}
			if ans.Exec.Confine != tt.wantConfine || ans.Exec.Level != tt.wantLevel || (ans.Exec.Capability != "") != tt.wantCap {
				t.Errorf("exec %+v; want confine %v level %q capability %v", *ans.Exec, tt.wantConfine, tt.wantLevel, tt.wantCap)
			}
			if !tt.confine && !strings.Contains(ans.Reason, "UNCONFINED") {
				t.Errorf("reason %q does not say the command runs unconfined", ans.Reason)
			}
		})
	}
}

func TestCapabilityNoneLevel(t *testing.T) {
	e := newTestEnv(t) // no Confinement configured: the machine cannot
	ans, err := e.client.Check(context.Background(), wire.CheckRequest{ClientSession: "c", Cwd: e.work, Command: "ls", ExecCommand: "ls"})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Exec == nil || ans.Exec.Confine || ans.Exec.Level != wire.LevelNone || ans.Exec.Capability != "" {
		t.Errorf("exec %+v; want unconfined, level none, no capability", ans.Exec)
	}
}

// TestCapabilityExec: a capability has its session's sandbox prepared
// once, from the policy with the device file's part and the grants the
// check used; it is refused a second time, after expiry, for another
// command or session, and on every other route.
func TestCapabilityExec(t *testing.T) {
	ctx := context.Background()
	t.Run("once, with device policy and used grants", func(t *testing.T) {
		ce := newCapEnv(t)
		first := ce.hookCheck(t, "ls") // registers the hook-only session
		g, err := ce.store.Put(grants.NewGrant{Scope: grants.ScopeOnce, Op: guard.OpRead, Path: ce.dl + "/report.csv",
			Kind: guard.KindFile, Session: first.Session})
		if err != nil {
			t.Fatal(err)
		}
		cmd := "cat " + ce.dl + "/report.csv"
		ans := ce.hookCheck(t, cmd)
		if ans.Decision != guard.Allow || !slices.Contains(ans.Grants, g.ID) || ans.Exec.Capability == "" {
			t.Fatalf("answer %+v: want allowed by %s with a capability", ans, g.ID)
		}
		p, st := ce.prepare(t, ans.Exec.Capability, cmd, "")
		if st != http.StatusOK {
			t.Fatalf("prepare with the capability: %d", st)
		}
		pol := ce.launcher.policy()
		want := guard.Scope{Op: guard.OpRead, Path: ce.dl + "/report.csv", Kind: guard.KindFile}
		if p.Session != first.Session || pol.Session != first.Session || !slices.Contains(pol.Used, want) || slices.Contains(pol.Grants, want) {
			t.Errorf("prepared for %s, policy session %s used %v grants %v; want %s, the spent once grant in used only",
				p.Session, pol.Session, pol.Used, pol.Grants, first.Session)
		}
		if pol.Confinement == nil || !*pol.Confinement || !slices.Equal(pol.Toolchains, []string{"/opt/tc"}) || len(pol.Caches) != 1 {
			t.Errorf("policy device part: confinement %v toolchains %v caches %v", pol.Confinement, pol.Toolchains, pol.Caches)
		}
		if p.Ticket == "" || p.Ticket == ans.Exec.Capability {
			t.Errorf("report ticket %q: want a new secret", p.Ticket)
		}
		if _, st := ce.prepare(t, ans.Exec.Capability, cmd, ""); st != http.StatusForbidden {
			t.Errorf("second use: %d; want 403", st)
		}
		if _, st := ce.prepare(t, p.Ticket, cmd, ""); st != http.StatusForbidden {
			t.Errorf("the report ticket as an exec capability: %d; want 403", st)
		}
	})
	refusals := []struct {
		name   string
		status int
		use    func(t *testing.T, ce *capEnv, cap, session string) int
	}{
		{"after expiry", http.StatusForbidden, func(t *testing.T, ce *capEnv, cap, _ string) int {
			ce.clock.Add(int64(engine.CapabilityTTL + time.Second))
			_, st := ce.prepare(t, cap, "ls", "")
			return st
		}},
		{"for another command", http.StatusForbidden, func(t *testing.T, ce *capEnv, cap, _ string) int {
			_, st := ce.prepare(t, cap, "cat /etc/passwd", "")
			return st
		}},
		{"for another session", http.StatusConflict, func(t *testing.T, ce *capEnv, cap, _ string) int {
			other := ce.register(wire.SessionRequest{})
			_, st := ce.prepare(t, cap, "ls", other.ID)
			return st
		}},
		{"for a report", http.StatusForbidden, func(t *testing.T, ce *capEnv, cap, _ string) int {
			_, st := ce.report(t, cap, "ls", "cat: /x: Permission denied")
			return st
		}},
		{"for the policy", http.StatusBadRequest, func(t *testing.T, ce *capEnv, cap, _ string) int {
			return ce.capCall(t, http.MethodGet, "/v1/policy", cap, "ls", "", nil, nil)
		}},
		{"for a check", http.StatusBadRequest, func(t *testing.T, ce *capEnv, cap, session string) int {
			return ce.capCall(t, http.MethodPost, "/v1/check", cap, "ls", "", wire.CheckRequest{SessionID: session, Command: "ls"}, nil)
		}},
		{"for events", http.StatusBadRequest, func(t *testing.T, ce *capEnv, cap, session string) int {
			return ce.capCall(t, http.MethodGet, "/v1/events", cap, "ls", session, nil, nil)
		}},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			ce := newCapEnv(t)
			ans := ce.hookCheck(t, "ls")
			if st := tt.use(t, ce, ans.Exec.Capability, ans.Session); st != tt.status {
				t.Fatalf("got %d; want %d", st, tt.status)
			}
			ce.clock.Store(time.Now().UnixNano())
			if _, st := ce.prepare(t, ans.Exec.Capability, "ls", ""); st == http.StatusOK {
				t.Errorf("the capability still prepared a sandbox after it was refused")
			}
		})
	}
	t.Run("without a capability", func(t *testing.T) {
		ce := newCapEnv(t)
		ans := ce.hookCheck(t, "ls")
		c := apiclient.New(ce.sock)
		c.Session = ans.Session
		err := c.Do(ctx, http.MethodPost, wire.PathExec, wire.ExecRequest{Path: "/bin/ls", Argv: []string{"ls"}}, nil)
		if statusOf(err) != http.StatusBadRequest {
			t.Errorf("POST %s with a session id and no capability: %v; want 400", wire.PathExec, err)
		}
	})
	t.Run("for a decision", func(t *testing.T) {
		ce := newCapEnv(t)
		denied := ce.hookCheck(t, "cat "+ce.dl+"/other.csv")
		if denied.Pending == "" {
			t.Fatalf("no approval request: %+v", denied)
		}
		ans := ce.hookCheck(t, "ls")
		if st := ce.capCall(t, http.MethodPost, "/v1/requests/"+denied.Pending+"/decision", ans.Exec.Capability, "ls", "",
			wire.Decision{Scope: "session"}, nil); st == http.StatusOK {
			t.Fatal("a decision with a capability was accepted")
		}
		if p := ce.srv.Engine().Pending(); len(p) != 1 || p[0].ID != denied.Pending {
			t.Errorf("pending %+v; want %s still pending", p, denied.Pending)
		}
		if gs, _ := ce.store.List(grants.Filter{Session: denied.Session}); len(gs) != 0 {
			t.Errorf("grants %+v after a refused decision", gs)
		}
	})
}

// TestExecReport: the report ticket explains, once, the refused paths of
// its command's stderr: an eligible read is raised for approval, an
// ineligible one is said to be final; lines naming no refusal are
// ignored.
func TestExecReport(t *testing.T) {
	ce := newCapEnv(t)
	ans := ce.hookCheck(t, "bash ./x.sh")
	p, st := ce.prepare(t, ans.Exec.Capability, "bash ./x.sh", "")
	if st != http.StatusOK {
		t.Fatalf("prepare: %d", st)
	}
	if _, st := ce.report(t, p.Ticket, "ls", "cat: /x: Permission denied"); st != http.StatusForbidden {
		t.Fatalf("the ticket for another command: %d; want 403", st)
	}
	p, st = ce.prepare(t, ce.hookCheck(t, "bash ./x.sh").Exec.Capability, "bash ./x.sh", "")
	if st != http.StatusOK {
		t.Fatalf("prepare: %d", st)
	}
	lines, st := ce.report(t, p.Ticket, "bash ./x.sh", "cat: "+ce.dl+"/other.csv: Permission denied", "all good",
		"cat: /etc/shadow: Permission denied")
	if st != http.StatusOK {
		t.Fatalf("report: %d", st)
	}
	if len(lines) != 2 || !strings.Contains(lines[0], "they were asked in pathgrant's window") || !strings.Contains(lines[1], "cannot be approved") {
		t.Errorf("report %q: want the Downloads read raised and /etc/shadow final", lines)
	}
	if pending := ce.srv.Engine().Pending(); len(pending) != 1 || !strings.HasSuffix(pending[0].Path, "/other.csv") {
		t.Errorf("pending %+v; want one request for other.csv", pending)
	}
	if _, st := ce.report(t, p.Ticket, "bash ./x.sh", "cat: /x: Permission denied"); st != http.StatusForbidden {
		t.Errorf("a second report: %d; want 403", st)
	}
}

func TestHealthConfinement(t *testing.T) {
	ce := newCapEnv(t)
	for _, tt := range []struct {
		confine bool
		want    wire.Level
	}{{true, "bwrap+landlock"}, {false, wire.LevelOff}} {
		ce.confine.Store(tt.confine)
		var got wire.Health
		if err := ce.client.Do(context.Background(), http.MethodGet, "/v1/health", nil, &got); err != nil {
			t.Fatal(err)
		}
		if got.Confinement != tt.want {
			t.Errorf("confine %v: health %v; want confinement %q", tt.confine, got, tt.want)
		}
	}
}
