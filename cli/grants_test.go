package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pathgrant/appdirs"
	"pathgrant/grants"
	"pathgrant/guard"
)

// fixture is a store with a session grant, a device grant and a once grant.
type fixture struct {
	path             string
	sess, dev, other grants.Grant
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{path: filepath.Join(dir, "state", "pathgrant.db")}
	// The real machine identity: the commands open the store with it.
	s, err := grants.Open(f.path, grants.Options{NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	file := filepath.Join(dir, "report.pdf")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"s1", "s2"} {
		if _, err := s.StartSession(grants.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	var put func(scope grants.Scope, session string) grants.Grant
	put = func(scope grants.Scope, session string) grants.Grant {
		g, err := s.Put(grants.NewGrant{Scope: scope, Op: guard.OpRead, Path: file, Kind: guard.KindFile, Session: session})
		if errors.Is(err, grants.ErrNoDeviceIdentity) { // no /etc/machine-id here
			return put(grants.ScopeSession, session)
		}
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	f.sess, f.dev, f.other = put(grants.ScopeSession, "s1"), put(grants.ScopeDevice, "s1"), put(grants.ScopeOnce, "s2")
	return f
}

type result struct {
	code           int
	stdout, stderr string
}

func run(fn func([]string, *bytes.Buffer, *bytes.Buffer) int, args ...string) result {
	var out, errb bytes.Buffer
	code := fn(args, &out, &errb)
	return result{code, out.String(), errb.String()}
}

func grantsCmd(args ...string) result {
	return run(func(a []string, o, e *bytes.Buffer) int { return runGrants(a, o, e) }, args...)
}

func auditCmd(args ...string) result {
	return run(func(a []string, o, e *bytes.Buffer) int { return runAudit(a, o, e) }, args...)
}

func (r result) ok(t *testing.T) result {
	t.Helper()
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	return r
}

func jsonLines[T any](t *testing.T, s string) []T {
	t.Helper()
	var out []T
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, v)
	}
	return out
}

type listed struct {
	ID      string `json:"id"`
	Scope   string `json:"scope"`
	Session string `json:"session"`
	State   string `json:"state"`
}

func ids(ls []listed) map[string]string {
	m := map[string]string{}
	for _, l := range ls {
		m[l.ID] = l.State
	}
	return m
}

func TestGrantsList(t *testing.T) {
	f := newFixture(t)
	text := grantsCmd("list", "--store", f.path).ok(t).stdout
	for _, id := range []string{f.sess.ID, f.dev.ID, f.other.ID} {
		if !strings.Contains(text, id) {
			t.Errorf("list output lacks %s:\n%s", id, text)
		}
	}
	if bare := grantsCmd("--store", f.path).ok(t).stdout; bare != text {
		t.Errorf("grants with no subcommand printed\n%s\nwant what grants list prints:\n%s", bare, text)
	}
	all := ids(jsonLines[listed](t, grantsCmd("list", "--json", "--store", f.path).ok(t).stdout))
	if len(all) != 3 || all[f.dev.ID] != "live" {
		t.Errorf("list --json = %v", all)
	}
	s2 := ids(jsonLines[listed](t, grantsCmd("list", "--session", "s2", "--json", "--store", f.path).ok(t).stdout))
	if len(s2) != 1 || s2[f.other.ID] != "live" {
		t.Errorf("list --session s2 = %v, want only %s", s2, f.other.ID)
	}
}

func TestGrantsRevoke(t *testing.T) {
	f := newFixture(t)
	r := grantsCmd("revoke", f.sess.ID, "--store", f.path).ok(t)
	if !strings.Contains(r.stdout, "revoked "+f.sess.ID) {
		t.Errorf("revoke output %q", r.stdout)
	}
	live := ids(jsonLines[listed](t, grantsCmd("list", "--json", "--store", f.path).ok(t).stdout))
	if _, ok := live[f.sess.ID]; ok || len(live) != 2 {
		t.Errorf("after revoke, live grants = %v", live)
	}
	all := ids(jsonLines[listed](t, grantsCmd("list", "--all", "--json", "--store", f.path).ok(t).stdout))
	if all[f.sess.ID] != "revoked" {
		t.Errorf("list --all shows the revoked grant as %q", all[f.sess.ID])
	}
	if r := grantsCmd("revoke", f.sess.ID, "--store", f.path); r.code != 1 {
		t.Errorf("revoking twice: exit %d, want 1", r.code)
	}
	r = grantsCmd("revoke", "--session", "s1", "--store", f.path).ok(t)
	if !strings.Contains(r.stdout, "revoked 1 grant of session s1") {
		t.Errorf("revoke --session output %q", r.stdout)
	}
	live = ids(jsonLines[listed](t, grantsCmd("list", "--json", "--store", f.path).ok(t).stdout))
	if len(live) != 1 || live[f.other.ID] != "live" {
		t.Errorf("after revoke --session s1, live grants = %v", live)
	}
}

func TestGrantsStoreFromEnvironment(t *testing.T) {
	f := newFixture(t)
	t.Setenv(appdirs.StoreEnv, f.path)
	for _, args := range [][]string{{"list"}, nil} {
		if out := grantsCmd(args...).ok(t).stdout; !strings.Contains(out, f.dev.ID) {
			t.Errorf("grants %v with %s set did not read that store:\n%s", args, appdirs.StoreEnv, out)
		}
	}
}

func TestAuditCommand(t *testing.T) {
	f := newFixture(t)
	grantsCmd("revoke", f.dev.ID, "--store", f.path).ok(t)
	type rec struct {
		Kind    string `json:"kind"`
		Session string `json:"session"`
		Grant   string `json:"grant"`
	}
	all := jsonLines[rec](t, auditCmd("--json", "--store", f.path).ok(t).stdout)
	if len(all) != 4 || all[3].Kind != "revoke" || all[3].Grant != f.dev.ID {
		t.Fatalf("audit --json = %+v, want 3 approvals and a revoke", all)
	}
	s2 := jsonLines[rec](t, auditCmd("--session", "s2", "--json", "--store", f.path).ok(t).stdout)
	if len(s2) != 1 || s2[0].Grant != f.other.ID {
		t.Errorf("audit --session s2 = %+v", s2)
	}
	if got := jsonLines[rec](t, auditCmd("--since", "1h", "--json", "--store", f.path).ok(t).stdout); len(got) != 4 {
		t.Errorf("audit --since 1h: %d records, want 4", len(got))
	}
	future := time.Now().Add(time.Hour).Format(time.RFC3339)
	if got := auditCmd("--since", future, "--json", "--store", f.path).ok(t).stdout; got != "" {
		t.Errorf("audit --since the future printed %q", got)
	}
	text := auditCmd("--store", f.path).ok(t).stdout
	if !strings.Contains(text, "approve") || !strings.Contains(text, "revoke") {
		t.Errorf("audit text output:\n%s", text)
	}
}

func TestStoreCommandErrors(t *testing.T) {
	f := newFixture(t)
	missing := filepath.Join(t.TempDir(), "none.db")
	corrupt := filepath.Join(t.TempDir(), "bad.db")
	if err := os.WriteFile(corrupt, bytes.Repeat([]byte("x"), 8192), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		cmd     func(...string) result
		args    []string
		code    int
		stderr  string
		nothing bool // stdout must be empty
	}{
		{"no subcommand lists", grantsCmd, []string{"--store", missing}, 0, "", true},
		{"unknown subcommand", grantsCmd, []string{"frob"}, 2, "unknown subcommand", true},
		{"list extra argument", grantsCmd, []string{"list", "x", "--store", f.path}, 2, "unexpected argument", true},
		{"unknown flag", grantsCmd, []string{"list", "--nope"}, 2, "flag provided but not defined", true},
		{"revoke without id", grantsCmd, []string{"revoke", "--store", f.path}, 2, "exactly one", true},
		{"revoke id and session", grantsCmd, []string{"revoke", "x", "--session", "s1", "--store", f.path}, 2, "exactly one", true},
		{"revoke unknown id", grantsCmd, []string{"revoke", "g-nope", "--store", f.path}, 2, "no grant", true},
		{"audit bad since", auditCmd, []string{"--since", "yesterday", "--store", f.path}, 2, "--since", true},
		{"audit negative since", auditCmd, []string{"--since", "-1h", "--store", f.path}, 2, "--since", true},
		{"audit argument", auditCmd, []string{"x", "--store", f.path}, 2, "unexpected argument", true},
		{"corrupt store", grantsCmd, []string{"list", "--store", corrupt}, 1, "is corrupt", true},
		{"audit corrupt store", auditCmd, []string{"--store", corrupt}, 1, "mv " + corrupt, true},
		{"revoke in missing store", grantsCmd, []string{"revoke", "x", "--store", missing}, 1, "no such file", true},
		{"list missing store", grantsCmd, []string{"list", "--store", missing}, 0, "", true},
		{"audit missing store", auditCmd, []string{"--store", missing}, 0, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.cmd(tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", r.code, tc.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.stderr) || strings.Count(r.stderr, "\n") > 1 {
				t.Errorf("stderr %q, want one line containing %q", r.stderr, tc.stderr)
			}
			if tc.nothing && r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
		})
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("a command created the missing store")
	}
}

func TestStoreCommandWhileDaemonRuns(t *testing.T) {
	f := newFixture(t)
	s, err := grants.Open(f.path, grants.Options{NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := grantsCmd("list", "--store", f.path)
	if r.code != 1 || !strings.Contains(r.stderr, "already running") {
		t.Errorf("list while the store is held: exit %d, stderr %q", r.code, r.stderr)
	}
}
