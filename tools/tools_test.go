package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pathgrant/guard"
	"pathgrant/tools"
)

// tree is a home folder with a workspace, a Downloads folder (eligible
// for read approval) and a secret, and a session working in it.
type tree struct {
	home, work, downloads, secret, outside string
	grants                                 *guard.GrantSet
	events                                 []tools.Event
	sess                                   *tools.Session
}

func newTree(t *testing.T) *tree {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := &tree{home: root + "/home", grants: guard.NewGrantSet()}
	tr.work, tr.downloads = tr.home+"/work", tr.home+"/Downloads"
	tr.secret, tr.outside = tr.home+"/.ssh/id_ed25519", tr.home+"/notes.txt"
	writeFile(t, tr.work+"/main.go", "package main\n\nfunc main() {}\n")
	writeFile(t, tr.downloads+"/report.csv", "a,b\n1,2\n")
	writeFile(t, tr.secret, "SECRET KEY\n")
	writeFile(t, tr.outside, "notes\n")
	pol := guard.Policy{
		SessionPolicy: guard.SessionPolicy{Cwd: tr.work, Workspace: []string{tr.work}},
		DevicePolicy:  guard.DevicePolicy{EligibleReadOnly: []string{tr.downloads}, Protected: []string{tr.home + "/.config/pathgrant"}},
	}
	compiled, err := pol.Compile(tr.home)
	if err != nil {
		t.Fatal(err)
	}
	tr.sess = &tools.Session{ID: "s-1", Owner: "s-1", Agent: "claude", Cwd: tr.work, Home: tr.home,
		Policy: pol, Compiled: compiled, Grants: tr.grants,
		Audit: func(e tools.Event) { tr.events = append(tr.events, e) }}
	return tr
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func args(t *testing.T, v any) json.RawMessage {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func (tr *tree) run(t *testing.T, tool string, a any) tools.Result {
	t.Helper()
	res, err := tr.sess.Run(context.Background(), tools.Call{Tool: tool, Args: args(t, a)})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, a, err)
	}
	return res
}

func TestFileTools(t *testing.T) {
	tr := newTree(t)
	tests := []struct {
		name     string
		tool     string
		args     map[string]any
		allow    bool
		eligible bool
		check    func(t *testing.T, res tools.Result)
	}{
		{"read in the workspace", tools.ReadFile, map[string]any{"path": "main.go"}, true, false, func(t *testing.T, res tools.Result) {
			if res.Content == nil || *res.Content != "package main\n\nfunc main() {}\n" || res.Path != tr.work+"/main.go" {
				t.Errorf("content %v path %s", res.Content, res.Path)
			}
		}},
		{"read lines", tools.ReadFile, map[string]any{"path": tr.work + "/main.go", "offset": 2, "limit": 1}, true, false, func(t *testing.T, res tools.Result) {
			if res.Content == nil || *res.Content != "func main() {}\n" {
				t.Errorf("content %v", res.Content)
			}
		}},
		{"Downloads read asks for approval", tools.ReadFile, map[string]any{"path": "~/Downloads/report.csv"}, false, true, func(t *testing.T, res tools.Result) {
			want := guard.Scope{Op: guard.OpRead, Path: tr.downloads + "/report.csv", Kind: guard.KindFile}
			if res.Suggested == nil || *res.Suggested != want || res.Content != nil {
				t.Errorf("suggested %v, content %v; want %v and no content", res.Suggested, res.Content, want)
			}
		}},
		{"ssh key read is never offered", tools.ReadFile, map[string]any{"path": "~/.ssh/id_ed25519"}, false, false, nil},
		{"write in the workspace", tools.WriteFile, map[string]any{"path": "new.txt", "content": "hello\n"}, true, false, func(t *testing.T, res tools.Result) {
			if data, err := os.ReadFile(tr.work + "/new.txt"); err != nil || string(data) != "hello\n" || res.Bytes != 6 {
				t.Errorf("file %q %v, bytes %d", data, err, res.Bytes)
			}
		}},
		{"write outside is never offered", tools.WriteFile, map[string]any{"path": tr.outside, "content": "x"}, false, false, func(t *testing.T, res tools.Result) {
			if data, _ := os.ReadFile(tr.outside); string(data) != "notes\n" {
				t.Errorf("outside file changed: %q", data)
			}
		}},
		{"write to Downloads is never offered", tools.WriteFile, map[string]any{"path": tr.downloads + "/report.csv", "content": "x"}, false, false, nil},
		{"list the workspace", tools.ListDirectory, map[string]any{"path": "."}, true, false, func(t *testing.T, res tools.Result) {
			if len(res.Entries) == 0 || !hasEntry(res.Entries, tools.Entry{Name: "main.go", Type: "file", Size: 29}) {
				t.Errorf("entries %v", res.Entries)
			}
		}},
		{"list Downloads asks for approval", tools.ListDirectory, map[string]any{"path": tr.downloads}, false, true, nil},
		{"list home is never offered", tools.ListDirectory, map[string]any{"path": tr.home}, false, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tr.run(t, tt.tool, tt.args)
			if allowed := res.Decision == guard.Allow; allowed != tt.allow || res.Eligible != tt.eligible || res.Session != "s-1" {
				t.Fatalf("%+v; want allow=%v eligible=%v for session s-1", res, tt.allow, tt.eligible)
			}
			if tt.allow && res.Error != "" {
				t.Fatalf("allowed call failed: %s", res.Error)
			}
			if !tt.allow && res.Reason == "" {
				t.Errorf("denial without a reason")
			}
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
}

func hasEntry(es []tools.Entry, want tools.Entry) bool {
	for _, e := range es {
		if e == want {
			return true
		}
	}
	return false
}

// TestGrantAllowsAfterApproval: the caller's three steps. The denial is
// eligible; once the user's grant exists the same call, evaluated again,
// runs.
func TestGrantAllowsAfterApproval(t *testing.T) {
	tr := newTree(t)
	call := tools.Call{Tool: tools.ReadFile, Args: args(t, map[string]any{"path": tr.downloads + "/report.csv"})}
	p, err := tr.sess.Prepare(call)
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Evaluate()
	if err != nil || d.Verdict != guard.Deny || !d.Eligible {
		t.Fatalf("first evaluation %+v %v, want an eligible deny", d, err)
	}
	denied := p.Denied(d).Pending("req-1")
	if denied.PendingID != "req-1" || denied.Retry != tools.RetryHint {
		t.Errorf("pending denial %+v", denied)
	}
	tr.grants.Add(guard.Grant{ID: "g-1", Op: guard.OpRead, Path: tr.downloads + "/report.csv", Kind: guard.KindFile})
	d, err = p.Evaluate()
	if err != nil || d.Verdict != guard.Allow {
		t.Fatalf("after the grant %+v %v, want allow", d, err)
	}
	res := p.Execute(context.Background(), d)
	if res.Content == nil || *res.Content != "a,b\n1,2\n" {
		t.Fatalf("content %v, error %q", res.Content, res.Error)
	}
	if n := len(tr.events); n != 2 || tr.events[0].Decision != guard.Deny || tr.events[1].Decision != guard.Allow ||
		tr.events[1].Path != tr.downloads+"/report.csv" {
		t.Errorf("audit events %+v", tr.events)
	}
}

// TestSymlinkSwappedInAfterTheCheck: a file replaced by a link to the
// secret between the check and the open is not followed.
func TestSymlinkSwappedInAfterTheCheck(t *testing.T) {
	tr := newTree(t)
	writeFile(t, tr.work+"/data.txt", "data\n")
	for _, tool := range []string{tools.ReadFile, tools.WriteFile} {
		t.Run(tool, func(t *testing.T) {
			a := map[string]any{"path": "data.txt"}
			if tool == tools.WriteFile {
				a["content"] = "overwritten"
			}
			p, err := tr.sess.Prepare(tools.Call{Tool: tool, Args: args(t, a)})
			if err != nil {
				t.Fatal(err)
			}
			d, err := p.Evaluate()
			if err != nil || d.Verdict != guard.Allow {
				t.Fatalf("%+v %v", d, err)
			}
			os.Remove(tr.work + "/data.txt")
			if err := os.Symlink(tr.secret, tr.work+"/data.txt"); err != nil {
				t.Fatal(err)
			}
			res := p.Execute(context.Background(), d)
			if res.Error == "" || res.Content != nil {
				t.Errorf("followed the swapped-in link: %+v", res)
			}
			if data, _ := os.ReadFile(tr.secret); string(data) != "SECRET KEY\n" {
				t.Errorf("secret changed: %q", data)
			}
			os.Remove(tr.work + "/data.txt")
			writeFile(t, tr.work+"/data.txt", "data\n")
		})
	}
}

func TestReadBounded(t *testing.T) {
	tr := newTree(t)
	tr.sess.Limits.MaxOutput = 10
	writeFile(t, tr.work+"/big.txt", strings.Repeat("0123456789\n", 5))
	res := tr.run(t, tools.ReadFile, map[string]any{"path": "big.txt"})
	if res.Content == nil || *res.Content != "0123456789" || !res.Truncated {
		t.Errorf("content %v truncated %v", res.Content, res.Truncated)
	}
}

func TestBadCalls(t *testing.T) {
	tr := newTree(t)
	tests := []struct {
		name string
		call tools.Call
	}{
		{"unknown tool", tools.Call{Tool: "delete_everything", Args: json.RawMessage(`{}`)}},
		{"unknown argument", tools.Call{Tool: tools.ReadFile, Args: json.RawMessage(`{"path": "a", "sudo": true}`)}},
		{"no path", tools.Call{Tool: tools.ListDirectory, Args: json.RawMessage(`{}`)}},
		{"no content", tools.Call{Tool: tools.WriteFile, Args: json.RawMessage(`{"path": "a"}`)}},
		{"no command", tools.Call{Tool: tools.ExecuteShellCommand, Args: json.RawMessage(`{"command": " "}`)}},
		{"trailing data", tools.Call{Tool: tools.ReadFile, Args: json.RawMessage(`{"path": "a"} {}`)}},
		{"unparsable shell", tools.Call{Tool: tools.ExecuteShellCommand, Args: json.RawMessage(`{"command": "cat 'x"}`)}},
		// one argument named twice: encoding/json would keep the last
		{"read: path twice", tools.Call{Tool: tools.ReadFile, Args: json.RawMessage(`{"path": "a", "path": "main.go"}`)}},
		{"read: path twice, in another case", tools.Call{Tool: tools.ReadFile, Args: json.RawMessage(`{"path": "a", "PATH": "main.go"}`)}},
		{"list: path twice, in another case", tools.Call{Tool: tools.ListDirectory, Args: json.RawMessage(`{"path": "a", "Path": "."}`)}},
		{"write: content twice, in another case", tools.Call{Tool: tools.WriteFile, Args: json.RawMessage(`{"path": "a", "content": "x", "CONTENT": "y"}`)}},
		{"shell: command twice, in another case", tools.Call{Tool: tools.ExecuteShellCommand, Args: json.RawMessage(`{"command": "ls", "COMMAND": "id"}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tr.sess.Run(context.Background(), tt.call); !errors.Is(err, tools.ErrBadCall) {
				t.Errorf("err %v, want ErrBadCall", err)
			}
		})
	}
}

// TestSessionIdentity: a call never runs under an empty or mixed identity.
func TestSessionIdentity(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(s *tools.Session)
	}{
		{"no id", func(s *tools.Session) { s.ID = "" }},
		{"no policy", func(s *tools.Session) { s.Compiled = nil }},
		{"another notification owner", func(s *tools.Session) { s.Owner = "s-2" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			tt.mutate(tr.sess)
			if _, err := tr.sess.Run(context.Background(), tools.Call{Tool: tools.ReadFile, Args: args(t, map[string]any{"path": "main.go"})}); err == nil {
				t.Error("ran without a whole session identity")
			}
		})
	}
}
