package ipc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"pathgrant/appdirs"
	"pathgrant/devicepolicy"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/ipc/hooks"
	"pathgrant/tools"
)

// boundsEnv is a daemon configured as the real one is (DefaultDevicePolicy
// from an environment), whose environment also moves the agents'
// configuration homes, puts the runtime folder in a scratch "/run/user/UID"
// and names a socket in a scratch "/tmp/pathgrant-UID".
type boundsEnv struct {
	*testEnv
	env              map[string]string
	runUser, tmpLike string // stand-ins for /run/user/UID and /tmp
	pid              atomic.Int32
}

func newBoundsEnv(t *testing.T) *boundsEnv {
	b := &boundsEnv{env: map[string]string{}}
	b.pid.Store(20000)
	scratch := func() string {
		d, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	b.runUser, b.tmpLike = scratch(), scratch()
	b.testEnv = newTestEnv(t, func(c *Config) {
		home := c.Home
		b.env["HOME"] = home
		b.env["XDG_RUNTIME_DIR"] = b.runUser
		b.env[appdirs.SocketEnv] = b.tmpLike + "/pathgrant-1000/pathgrant.sock"
		b.env["CLAUDE_CONFIG_DIR"] = home + "/moved/claude"
		b.env["CODEX_HOME"] = home + "/moved/codex"
		b.env["GEMINI_CLI_HOME"] = home + "/moved/gemini-home"
		b.env["PI_CODING_AGENT_DIR"] = home + "/moved/pi"
		c.Getenv = func(k string) string { return b.env[k] }
		c.MaxSessions, c.MaxSessionsPerProcess = 1<<20, 1<<20 // every case registers its own
		d := DefaultDevicePolicy(c.Getenv, home, c.Store.Path(), b.env[appdirs.SocketEnv])
		d.EligibleReadOnly = c.Device.EligibleReadOnly
		d.Protected = append(d.Protected, c.Device.Protected...)
		c.Device = d
	})
	return b
}

// boundsCase is one root a session names: refused naming want (a class
// and the place), or allowed when want is "". workspaceOnly: refused as a
// workspace, allowed as a read-only root.
type boundsCase struct {
	name, root, want string
	workspaceOnly    bool
}

// boundsCases is every class of place no session may be registered over
// (each member of the device policy's credential list, each agent's
// configuration home, moved or not), each reached through a link too,
// each "contains" case, and the look-alikes that stay allowed.
func (b *boundsEnv) boundsCases(t *testing.T) []boundsCase {
	home, root := b.home, filepath.Dir(b.home)
	noEnv := func(string) string { return "" }
	cases := []boundsCase{
		{"the root folder", "/", "is the root folder", false},
		{"the home folder", home, "is the home folder", false},
		{"the home folder with a trailing slash", home + "/", "is the home folder", false},
		{"a folder holding the home folder", root, "contains the home folder", false},
		{"~/.config holds ~/.config/gh", home + "/.config", "contains the credential folder " + home + "/.config/gh", false},
		{"~/.local holds pathgrant's state folder", home + "/.local", "contains", false},
		{"pathgrant's store folder", root + "/state", "is pathgrant's state folder", false},
		{"inside pathgrant's store folder", root + "/state/sub", "lies inside pathgrant's state folder", false},
		{"pathgrant's default state folder", home + "/.local/state/pathgrant", "is pathgrant's state folder", false},
		{"pathgrant's config folder", home + "/.config/pathgrant", "is pathgrant's config folder", false},
		{"the XDG runtime folder holding the socket", b.runUser, "is pathgrant's runtime folder", false},
		{"inside the XDG runtime folder", b.runUser + "/app", "lies inside pathgrant's runtime folder", false},
		{"the socket's folder", b.tmpLike + "/pathgrant-1000", "is pathgrant's runtime folder", false},
		{"a temp folder holding the socket's folder", b.tmpLike, "contains pathgrant's runtime folder", false},
		{"the temp folder, holding the socket's folder (and here the home folder)", filepath.Dir(b.tmpLike), "contains", false},
		{"a protected path (the daemon's socket folder)", root + "/run", "is a protected path", false},
		{"claude's MCP file", home + "/.claude.json", "is an agent's configuration", false},
		{"a project's .git", b.work + "/.git", "lies inside a project's .git", true},
		{"inside a project's .git", b.work + "/.git/hooks", "lies inside a project's .git", true},
		{"a project's .claude", b.work + "/.claude", "lies inside a project's .claude", true},
		{"a project's .CLAUDE, in another case", b.work + "/.CLAUDE", "lies inside a project's .CLAUDE", true},
		{"a project's .cursor", b.work + "/sub/.cursor", "lies inside a project's .cursor", true},

		{"allowed: ~/src/ssh-tools", home + "/src/ssh-tools", "", false},
		{"allowed: ~/.sshfoo", home + "/.sshfoo", "", false},
		{"allowed: ~/.claude-notes", home + "/.claude-notes", "", false},
		{"allowed: ~/projects/.claude-notes", home + "/projects/.claude-notes", "", false},
		{"allowed: ~/work/config", b.work + "/config", "", false},
		{"allowed: ~/.configs", home + "/.configs", "", false},
		{"allowed: a project beside the socket's folder", b.tmpLike + "/project", "", false},
		{"allowed: ~/.local/state-old", home + "/.local/state-old", "", false},
	}
	for _, f := range devicepolicy.Forbidden(home) {
		rel := strings.TrimPrefix(f, home+"/")
		cases = append(cases,
			boundsCase{"credential ~/" + rel, f, "is a credential folder", false},
			boundsCase{"inside credential ~/" + rel, f + "/sub", "lies inside the credential folder " + f, false})
	}
	for _, name := range hooks.Clients() {
		c, err := hooks.LookupClient(name)
		if err != nil {
			t.Fatal(err)
		}
		for how, ge := range map[string]appdirs.Getenv{"default": noEnv, "moved": func(k string) string { return b.env[k] }} {
			dir := c.Dir(ge, home)
			cases = append(cases,
				boundsCase{name + "'s " + how + " configuration home", dir, "is an agent's configuration home", false},
				boundsCase{"inside " + name + "'s " + how + " configuration home", dir + "/projects", "lies inside the agent configuration home " + dir, false})
			if up := filepath.Dir(dir); up != home {
				cases = append(cases, boundsCase{"holding " + name + "'s " + how + " configuration home", up, "contains", false})
			}
		}
	}
	// Every refused place again through a link from an ordinary folder.
	for i, c := range cases {
		if c.want == "" || c.root == "/" || strings.HasSuffix(c.root, "/") {
			continue
		}
		link := fmt.Sprintf("%s/links/%d", home, i)
		if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(c.root, link); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, boundsCase{c.name + ", through a link", link, c.want, c.workspaceOnly})
	}
	for _, c := range cases {
		if c.root != "/" && c.root != home+"/.claude.json" {
			if err := os.MkdirAll(c.root, 0o700); err != nil && !os.IsExist(err) {
				t.Fatal(err)
			}
		}
	}
	mustWrite(t, home+"/.claude.json", "{}")
	return cases
}

// registerRoute is one way a session comes to exist over the socket.
// reg registers one with these extra workspace or read-only roots and
// returns the status and the refusal's message. readOnly: the route can
// name read-only roots.
type registerRoute struct {
	name     string
	readOnly bool
	reg      func(t *testing.T, b *boundsEnv, extra SessionRequest, allowed bool) (int, string)
}

// registerRoutes are every registering route. A new one must be added
// here, where every bounds case runs through it.
var registerRoutes = []registerRoute{
	{"POST /v1/sessions", true, func(t *testing.T, b *boundsEnv, extra SessionRequest, _ bool) (int, string) {
		b.asPerson()
		return b.post(t, "", sessionReq(b, extra, ""))
	}},
	{"POST /v1/sessions child (pathgrant run inside a session)", true, func(t *testing.T, b *boundsEnv, extra SessionRequest, allowed bool) (int, string) {
		b.asPerson()
		parent := sessionReq(b, SessionRequest{}, "")
		if allowed { // the parent holds the root, so only the bounds can refuse the child
			parent = sessionReq(b, extra, "")
		}
		p := b.mustRegister(t, parent)
		return b.post(t, p.Token, sessionReq(b, extra, p.ID))
	}},
	{"POST /v1/sessions child from under the session's agent", true, func(t *testing.T, b *boundsEnv, extra SessionRequest, allowed bool) (int, string) {
		b.asNewAgent()
		roots := []string{b.work}
		if allowed { // the parent holds the root, so only the bounds can refuse the child
			for _, r := range append(extra.Workspace, extra.ReadOnly...) {
				if canon, _ := (guard.Canonicalizer{}).Canonical(r, "/", true); !guard.Within(b.work, canon) {
					roots = append(roots, r)
				}
			}
		}
		id := b.hookSession(t, roots)
		return b.post(t, "", sessionReq(b, extra, id))
	}},
	{"POST /v1/check, a hook-only session's first check", false, func(t *testing.T, b *boundsEnv, extra SessionRequest, _ bool) (int, string) {
		b.asNewAgent()
		_, err := NewClient(b.sock).Check(context.Background(), CheckRequest{SessionID: newID(), Cwd: b.work, Agent: "claude",
			WorkspaceRoots: append([]string{b.work}, extra.Workspace...), Op: guard.OpRead, Path: b.work + "/main.go"})
		return answerOf(err)
	}},
}

// TestRegistrationBounds runs every bounds case, as a workspace and as a
// read-only root, through every registering route: a refusal is 403, one
// line naming the root and its class, and audited.
func TestRegistrationBounds(t *testing.T) {
	b := newBoundsEnv(t)
	cases := b.boundsCases(t)
	for _, route := range registerRoutes {
		for _, role := range []string{"workspace", "read-only root"} {
			if role == "read-only root" && !route.readOnly {
				continue
			}
			for _, c := range cases {
				t.Run(route.name+"/"+role+"/"+c.name, func(t *testing.T) {
					extra := SessionRequest{Workspace: []string{c.root}}
					want := c.want
					if role == "read-only root" {
						extra = SessionRequest{ReadOnly: []string{c.root}}
						if c.workspaceOnly {
							want = ""
						}
					}
					st, msg := route.reg(t, b, extra, want == "")
					if want == "" {
						if st != http.StatusCreated && st != http.StatusOK {
							t.Fatalf("%s %s: %d %q; want it allowed", role, c.root, st, msg)
						}
						return
					}
					canon, err := (guard.Canonicalizer{Home: b.home}).Canonical(c.root, "/", true)
					if err != nil {
						t.Fatal(err)
					}
					if st != http.StatusForbidden || !strings.HasPrefix(msg, role+" "+canon+" ") ||
						!strings.Contains(msg, want) || strings.Contains(msg, "\n") {
						t.Fatalf("%d %q; want 403 %q naming %s and %q", st, msg, role, canon, want)
					}
					b.wantAudited(t, msg)
				})
			}
		}
	}
}

// TestRegistrationBoundsNoDeputy is the confused deputy end to end: a
// session over ~/.ssh is refused, and a session over a workspace cannot
// have the daemon read ~/.ssh/id_rsa or write ~/.ssh/authorized_keys
// through the tool routes.
func TestRegistrationBoundsNoDeputy(t *testing.T) {
	b := newBoundsEnv(t)
	mustWrite(t, b.home+"/.ssh/id_rsa", "SECRET KEY\n")
	b.asPerson()
	for _, req := range []SessionRequest{
		{Cwd: b.home + "/.ssh", Workspace: []string{b.home + "/.ssh"}},
		{Cwd: b.work, Workspace: []string{b.work}, ReadOnly: []string{b.home + "/.ssh"}},
		{Cwd: b.work, Workspace: []string{b.home + "/.config"}},
	} {
		if st, msg := b.post(t, "", req); st != http.StatusForbidden {
			t.Errorf("register %+v: %d %q; want 403", req, st, msg)
		}
	}
	s := b.mustRegister(t, sessionReq(b, SessionRequest{}, ""))
	c := NewClient(b.sock)
	c.Session, c.Token = s.ID, s.Token
	for tool, args := range map[string]map[string]any{
		tools.ReadFile:  {"path": "~/.ssh/id_rsa"},
		tools.WriteFile: {"path": "~/.ssh/authorized_keys", "content": "ssh-ed25519 AAAA attacker\n"},
	} {
		raw, _ := json.Marshal(args)
		res, err := c.Tool(context.Background(), tool, ToolRequest{Args: raw})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if res.Decision == guard.Allow || res.Content != nil && strings.Contains(*res.Content, "SECRET") {
			t.Errorf("%s %v through a workspace session: %+v", tool, args["path"], res)
		}
	}
	if _, err := os.Stat(b.home + "/.ssh/authorized_keys"); err == nil {
		t.Error("the daemon wrote ~/.ssh/authorized_keys")
	}
}

// TestRegisteringAgentBoundedByItsSession: a caller under an agent of
// session S may register only children of S (or of S's children), and a
// hook-only session only within S's roots; the same agent opening a new
// session in its own project still can.
func TestRegisteringAgentBoundedByItsSession(t *testing.T) {
	b := newBoundsEnv(t)
	other := b.home + "/other"
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	b.asPerson()
	unrelated := b.mustRegister(t, sessionReq(b, SessionRequest{}, ""))
	b.asNewAgent()
	s := b.hookSession(t, []string{b.work})
	child := b.mustRegister(t, SessionRequest{Cwd: b.work, Workspace: []string{b.work + "/sub"}, Parent: s})
	cases := []struct {
		name string
		call func() (int, string)
		want int
	}{
		{"a top-level session", func() (int, string) { return b.post(t, "", sessionReq(b, SessionRequest{}, "")) }, http.StatusForbidden},
		{"a child of another session", func() (int, string) {
			return b.post(t, unrelated.Token, sessionReq(b, SessionRequest{}, unrelated.ID))
		}, http.StatusForbidden},
		{"a child of its own session", func() (int, string) { return b.post(t, "", sessionReq(b, SessionRequest{}, s)) }, http.StatusCreated},
		{"a grandchild through its own child", func() (int, string) {
			return b.post(t, child.Token, SessionRequest{Cwd: b.work, Workspace: []string{b.work + "/sub"}, Parent: child.ID})
		}, http.StatusCreated},
		{"a hook-only session over another folder", func() (int, string) { return b.hookCheck([]string{other}) }, http.StatusForbidden},
		{"a hook-only session in its own project", func() (int, string) { return b.hookCheck([]string{b.work}) }, http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if st, msg := c.call(); st != c.want {
				t.Fatalf("%d %q; want %d", st, msg, c.want)
			}
		})
	}
	t.Run("an unreadable lineage", func(t *testing.T) {
		b.srv.cfg.Lineage = func(int32) ([]lineageEntry, error) { return nil, fmt.Errorf("gone") }
		defer func() { b.srv.cfg.Lineage = func(int32) ([]lineageEntry, error) { return *b.role.Load(), nil } }()
		if st, msg := b.post(t, "", sessionReq(b, SessionRequest{}, "")); st != http.StatusForbidden {
			t.Fatalf("%d %q; want 403", st, msg)
		}
	})
}

func sessionReq(b *boundsEnv, extra SessionRequest, parent string) SessionRequest {
	return SessionRequest{Agent: "tester", Cwd: b.work, Parent: parent,
		Workspace: append([]string{b.work}, extra.Workspace...), ReadOnly: extra.ReadOnly}
}

// asPerson plays the person's terminal, which never sent a check.
func (b *boundsEnv) asPerson() { b.role.Store(&userLineage) }

// asNewAgent plays a new agent process (and its hook), not yet marked.
func (b *boundsEnv) asNewAgent() {
	pid := b.pid.Add(2)
	l := []lineageEntry{{Proc{PID: pid, Start: 1}, "pathgrant-hook"}, {Proc{PID: pid + 1, Start: 1}, "claude"}}
	b.role.Store(&l)
}

// post registers req on a new connection (so the lineage played now is
// the caller's), with token when it names a parent.
func (b *boundsEnv) post(t *testing.T, token string, req SessionRequest) (int, string) {
	t.Helper()
	c := NewClient(b.sock)
	c.Token = token
	defer c.CloseIdle()
	_, err := c.Register(context.Background(), req)
	if err == nil {
		return http.StatusCreated, ""
	}
	return answerOf(err)
}

func (b *boundsEnv) mustRegister(t *testing.T, req SessionRequest) SessionResponse {
	t.Helper()
	c := NewClient(b.sock)
	defer c.CloseIdle()
	resp, err := c.Register(context.Background(), req)
	if err != nil {
		t.Fatalf("register %+v: %v", req, err)
	}
	return resp
}

// hookSession is a hook-only session first seen from the agent played
// now, over roots.
func (b *boundsEnv) hookSession(t *testing.T, roots []string) string {
	t.Helper()
	id := newID()
	c := NewClient(b.sock)
	defer c.CloseIdle()
	if _, err := c.Check(context.Background(), CheckRequest{SessionID: id, Cwd: b.work, Agent: "claude", WorkspaceRoots: roots,
		Op: guard.OpRead, Path: b.work + "/main.go"}); err != nil {
		t.Fatalf("hook session over %v: %v", roots, err)
	}
	return id
}

// hookCheck is a new hook-only session's first check from the agent
// played now.
func (b *boundsEnv) hookCheck(roots []string) (int, string) {
	c := NewClient(b.sock)
	defer c.CloseIdle()
	_, err := c.Check(context.Background(), CheckRequest{SessionID: newID(), Cwd: b.work, Agent: "claude", WorkspaceRoots: roots,
		Op: guard.OpRead, Path: b.work + "/main.go"})
	return answerOf(err)
}

// answerOf is an API error's status and message, 200 for none.
func answerOf(err error) (int, string) {
	var ae *APIError
	switch {
	case err == nil:
		return http.StatusOK, ""
	case errors.As(err, &ae):
		return ae.Status, ae.Msg
	}
	return 0, err.Error()
}

// wantAudited fails unless the audit log holds the refusal msg.
func (b *boundsEnv) wantAudited(t *testing.T, msg string) {
	t.Helper()
	recs, err := b.store.AuditRecords(grants.AuditFilter{Kind: grants.KindDeny})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if cut, ok := strings.CutSuffix(r.Reason, "…"); r.Reason == msg || ok && strings.HasPrefix(msg, cut) {
			return
		}
	}
	t.Errorf("refusal %q not audited as %s", msg, grants.KindDeny)
}
