package e2e

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pathgrant/e2e/testhost"
	"pathgrant/engine"
	"pathgrant/wire"
)

// Real tools, confined, reach a test host in a network namespace this
// test made, through the daemon's proxy and nothing else: in
// `allow-public` with the host's range allowed each works and nobody is
// asked; in `ask` each is paused on one request for the host, approved
// with its code, and the same run then works; in `allow-public` without
// the range the host's private address is asked, denied, and the tool
// fails with one refusal line naming it. The tools are pointed at the
// host's address alone (registries, index, module proxy; no update
// checks, no checksum database, no toolchain download), and the `ask`
// rows prove it: one request each, for the host.

// netRowTimeout bounds one tool run, approval included: every fixture is
// a few kilobytes on a local link.
const netRowTimeout = 60 * time.Second

// netToolRow is one real tool run confined against the host.
type netToolRow struct {
	name   string
	bins   []string // on netConfinedPath; a missing one fails the row (CI installs them all)
	byName bool     // the tool names the host by name (testhost.HostName), not by address
	port   int      // the host's port the tool connects to
	// scope approves the request in `ask`: once for a tool that makes one
	// connection; session for one that makes several to the same
	// destination (each would otherwise be a request), and the same
	// tools are denied for the session, since they retry.
	scope  string
	script func(e *netEnv, h *testhost.Host) string
	env    []string                                  // the row's own, after the tool environment
	check  func(t *testing.T, e *netEnv, out string) // after a run that worked
}

// dest is the destination the row's tool asks the proxy for.
func (row netToolRow) dest(h *testhost.Host) string {
	host := h.Addr.String()
	if row.byName {
		host = testhost.HostName
	}
	return net.JoinHostPort(host, strconv.Itoa(row.port))
}

// netToolRows are the tools an agent runs most against the network.
func netToolRows() []netToolRow {
	return []netToolRow{
		{name: "curl https", bins: []string{"curl"}, port: 443, scope: "once",
			script: func(_ *netEnv, h *testhost.Host) string { return "curl -fsS " + h.URL("/hello") },
			check:  netOutputHolds("hello from the test host")},
		{name: "wget https", bins: []string{"wget"}, port: 443, scope: "once",
			script: func(_ *netEnv, h *testhost.Host) string { return "wget -qO- " + h.URL("/hello") },
			check:  netOutputHolds("hello from the test host")},
		{name: "git clone https", bins: []string{"git"}, port: 443, scope: "once",
			script: func(_ *netEnv, h *testhost.Host) string { return "git clone -q " + h.URL("/git/repo.git") + " clone" },
			check:  netWorkFile("clone/README", testhost.RepoReadme)},
		{name: "git clone ssh", bins: []string{"git", "ssh"}, port: 22, scope: "once",
			// pathgrant's GIT_SSH_COMMAND (ssh with its ProxyCommand), with
			// the workspace's ssh config added to it.
			script: func(e *netEnv, h *testhost.Host) string {
				return `GIT_SSH_COMMAND="$GIT_SSH_COMMAND -F ` + e.sshRC + `" git clone -q ` + h.GitSSH() + " clone"
			},
			check: netWorkFile("clone/README", testhost.RepoReadme)},
		// npm's proxy agents (https-proxy-agent, socks-proxy-agent) set no
		// TLS server name for an address and check the certificate against
		// the proxy's address instead: through any proxy, npm reaches an
		// HTTPS registry by name only. So the registry is named, and the
		// packument's tarball URLs (by address) are rewritten to it.
		{name: "npm install", bins: []string{"npm", "node"}, byName: true, port: 443, scope: "session",
			script: func(*netEnv, *testhost.Host) string {
				return "npm install " + testhost.NPMPackage + " --no-audit --no-fund --prefer-online"
			},
			env:   []string{"npm_config_registry=https://" + testhost.HostName + "/npm/", "npm_config_replace_registry_host=always"},
			check: netWorkFileHolds("node_modules/"+testhost.NPMPackage+"/package.json", `"version": "`+testhost.NPMVersion+`"`)},
		{name: "pip3 download", bins: []string{"pip3"}, port: 443, scope: "session",
			script: func(*netEnv, *testhost.Host) string {
				return "pip3 download " + testhost.PyPIProject + "==" + testhost.PyPIVersion + " --no-deps -d dl"
			},
			check: netWorkFileHolds("dl/"+testhost.PyPIWheel, "")},
		{name: "pip3 install", bins: []string{"pip3"}, port: 443, scope: "session",
			script: func(*netEnv, *testhost.Host) string {
				return "pip3 install --no-deps --target site " + testhost.PyPIProject + "==" + testhost.PyPIVersion
			},
			check: netWorkFileHolds("site/"+testhost.PyPIDist+"/__init__.py", "hello from "+testhost.PyPIProject)},
		{name: "go mod download", bins: []string{"go"}, port: 443, scope: "session",
			script: func(*netEnv, *testhost.Host) string {
				return "go mod download -json " + testhost.GoModule + "@" + testhost.GoVersion
			},
			check: netGoDownloaded},
	}
}

// netMode is one [network] table and what the person does.
type netMode struct {
	name       string
	mode       string
	allowRange bool   // the host's range in allow_ranges
	decide     string // "" (nobody is asked), "approve" or "deny"
}

// netModes are the three ways a destination goes: allowed by the
// table, asked and approved, asked and denied.
func netModes() []netMode {
	return []netMode{
		{name: "allow-public with the range", mode: "allow-public", allowRange: true},
		{name: "ask, approved", mode: "ask", decide: "approve"},
		{name: "allow-public, denied", mode: "allow-public", decide: "deny"},
	}
}

// TestNetworkTools runs every row in every mode, rows in parallel: each
// run has a daemon (and so a queue of requests) of its own.
func TestNetworkTools(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: real tools run in the full test step, not with -short")
	}
	h := testhost.Start(t)
	bin := netBinaries(t)
	for _, row := range netToolRows() {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			netRequireTools(t, row.bins)
			for _, m := range netModes() {
				t.Run(m.name, func(t *testing.T) { runNetTool(t, bin, h, row, m) })
			}
		})
	}
	t.Run("pip3 retrying, denied once then for the session", func(t *testing.T) {
		t.Parallel()
		netRequireTools(t, []string{"pip3"})
		deniedTwice(t, bin, h)
	})
}

// deniedTwice: pip retries a refused connection. The person denies its
// first request once and the one its retry raises for the session: pip
// fails, and its output holds one refusal line for the host, the one
// that holds now (the session's denial), though two reasons refused it.
func deniedTwice(t *testing.T, bin string, h *testhost.Host) {
	e := newNetEnv(t, bin, h, netPolicy("allow-public", h, false))
	ctx, cancel := context.WithTimeout(context.Background(), netRowTimeout)
	defer cancel()
	run := e.start(ctx, h, "pip3 download "+testhost.PyPIProject+"=="+testhost.PyPIVersion+" --no-deps -d dl")
	first := e.awaitRequest(ctx, run)
	e.deny(first.ID, false)
	second := e.awaitRequest(ctx, run, first.ID)
	e.deny(second.ID, true)
	code, out := run.wait()
	if ctx.Err() != nil {
		t.Fatalf("pip did not finish in %v:\n%s\ndaemon:\n%s", netRowTimeout, out, e.log())
	}
	dest := net.JoinHostPort(h.Addr.String(), "443")
	for _, r := range []wire.Request{first, second} {
		if r.Path != dest {
			t.Errorf("request %+v, want one for %s", r, dest)
		}
	}
	if raised := e.requestsRaised(); !slices.Equal(raised, []string{first.ID, second.ID}) {
		t.Errorf("requests %v raised, want %s then %s", raised, first.ID, second.ID)
	}
	refusals := netRefusalLines(out)
	want := "pathgrant: connect to " + dest + " refused: denied by the person for this session"
	if code == 0 || len(refusals) != 1 || !strings.HasPrefix(refusals[0], want) {
		t.Fatalf("exit %d, refusals %q, want a failure and one line %q…:\n%s", code, refusals, want, out)
	}
	t.Logf("exit %d, %s", code, refusals[0])
}

// runNetTool runs row once under mode m and checks what the person saw
// and what the tool did.
func runNetTool(t *testing.T, bin string, h *testhost.Host, row netToolRow, m netMode) {
	e := newNetEnv(t, bin, h, netPolicy(m.mode, h, m.allowRange))
	ctx, cancel := context.WithTimeout(context.Background(), netRowTimeout)
	defer cancel()
	dest := row.dest(h)
	run := e.start(ctx, h, row.script(e, h), row.env...)
	var asked wire.Request
	if m.decide != "" {
		asked = e.awaitRequest(ctx, run)
		if asked.Op != wire.OpConnect || asked.Path != dest || asked.Tool != engine.ConnectTool || asked.Session != e.sess.ID {
			t.Errorf("the request %+v is not the session's connect to %s", asked, dest)
		}
		select {
		case <-run.done:
			t.Fatalf("the tool did not wait for the decision:\n%s", run.out.String())
		default:
		}
		if m.decide == "approve" {
			e.approve(asked.ID, row.scope)
		} else {
			e.deny(asked.ID, row.scope == "session")
		}
	}
	code, out := run.wait()
	if ctx.Err() != nil {
		t.Fatalf("the tool did not finish in %v:\n%s\ndaemon:\n%s", netRowTimeout, out, e.log())
	}
	refusals := netRefusalLines(out)
	raised := e.requestsRaised()
	switch {
	case m.decide == "":
		if len(raised) != 0 {
			t.Errorf("requests %v raised, want none", raised)
		}
	case !slices.Equal(raised, []string{asked.ID}):
		t.Errorf("requests %v raised, want %s alone\ndaemon:\n%s", raised, asked.ID, e.log())
	}
	if m.decide == "deny" {
		want := "pathgrant: connect to " + dest + " refused"
		if code == 0 || len(refusals) != 1 || !strings.HasPrefix(refusals[0], want) {
			t.Fatalf("denied: exit %d, refusals %q, want a failure and one line %q…:\n%s", code, refusals, want, out)
		}
		t.Logf("denied: exit %d, %s", code, refusals[0])
		return
	}
	if code != 0 || len(refusals) != 0 {
		t.Fatalf("exit %d, refusals %q, want 0 and none:\n%s\ndaemon:\n%s", code, refusals, out, e.log())
	}
	row.check(t, e, out)
	if left, err := e.client.Pending(context.Background()); err != nil || len(left) != 0 {
		t.Errorf("pending after the run: %+v, %v", left, err)
	}
}

// netRefusalLines are the output's lines saying pathgrant refused a
// connection.
func netRefusalLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "pathgrant: connect to ") {
			ls = append(ls, l)
		}
	}
	return ls
}

// netRequireTools fails t when a tool is not on netConfinedPath: CI installs
// every one, so a missing tool is a broken machine, not a row to skip.
func netRequireTools(t *testing.T, bins []string) {
	t.Helper()
	for _, b := range bins {
		found := slices.ContainsFunc(filepath.SplitList(netConfinedPath), func(dir string) bool {
			fi, err := os.Stat(filepath.Join(dir, b))
			return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
		})
		if !found {
			t.Fatalf("%s is not installed in %s", b, netConfinedPath)
		}
	}
}

// netOutputHolds checks the tool printed want.
func netOutputHolds(want string) func(*testing.T, *netEnv, string) {
	return func(t *testing.T, _ *netEnv, out string) {
		if !strings.Contains(out, want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
}

// netWorkFile checks a file the tool wrote in the workspace is want.
func netWorkFile(rel, want string) func(*testing.T, *netEnv, string) {
	return func(t *testing.T, e *netEnv, out string) {
		got, err := os.ReadFile(filepath.Join(e.work, rel))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q (%v), want %q; the tool said:\n%s", rel, got, err, want, out)
		}
	}
}

// netWorkFileHolds checks a file the tool wrote in the workspace is not
// empty and holds want.
func netWorkFileHolds(rel, want string) func(*testing.T, *netEnv, string) {
	return func(t *testing.T, e *netEnv, out string) {
		got, err := os.ReadFile(filepath.Join(e.work, rel))
		if err != nil || len(got) == 0 || !strings.Contains(string(got), want) {
			t.Errorf("%s: %q (%v), want it to hold %q; the tool said:\n%s", rel, got, err, want, out)
		}
	}
}

// netGoDownloaded reads go's JSON report: the module's zip and source are
// in the module cache under the tools' HOME, in the workspace.
func netGoDownloaded(t *testing.T, e *netEnv, out string) {
	var m struct{ Error, Zip, Dir string }
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("go mod download -json: %v:\n%s", err, out)
	}
	if m.Error != "" {
		t.Fatalf("go mod download: %s", m.Error)
	}
	for _, p := range []string{m.Zip, m.Dir} {
		if !strings.HasPrefix(p, e.toolHome+"/") {
			t.Errorf("%s is not under the tools' HOME %s", p, e.toolHome)
		}
	}
	if _, err := os.Stat(m.Zip); err != nil {
		t.Errorf("the module zip: %v", err)
	}
	if src, err := os.ReadFile(filepath.Join(m.Dir, "mod.go")); err != nil || string(src) != testhost.GoSource {
		t.Errorf("mod.go: %q (%v), want %q", src, err, testhost.GoSource)
	}
}
