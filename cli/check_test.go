package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type checkEnv struct {
	dir, home, work, downloads, policy string
}

func newCheckEnv(t *testing.T) checkEnv {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := checkEnv{dir: dir, home: dir + "/home", work: dir + "/home/work", downloads: dir + "/home/Downloads"}
	for _, f := range []string{e.work + "/main.go", e.downloads + "/report.csv"} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", e.home)
	e.policy = e.write(t, "policy.json", `{"cwd": "`+e.work+`", "workspace": ["`+e.work+`"], "read_only": [],
		"blocked_write": [], "eligible_read_only": ["~/Downloads"], "protected": []}`)
	return e
}

func (e checkEnv) write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestCheckContract pins the stable `pathgrant check` output: exactly these
// keys, these values, these exit statuses.
func TestCheckContract(t *testing.T) {
	e := newCheckEnv(t)
	tests := []struct {
		name     string
		args     []string
		code     int
		decision string
		eligible bool
		suggest  map[string]any
	}{
		{"allowed read", []string{"--op", "read", e.work + "/main.go"}, 0, "allow", false, nil},
		{"flags after path", []string{"--op", "read", "main.go", "--policy", e.policy}, 0, "allow", false, nil},
		{"downloads read", []string{"--op", "read", "~/Downloads/report.csv"}, 1, "deny", true,
			map[string]any{"op": "read", "path": e.downloads + "/report.csv", "kind": "file"}},
		{"incident shell", []string{"--shell", "cat ~/Downloads/report.csv"}, 1, "deny", true,
			map[string]any{"op": "read", "path": e.downloads + "/report.csv", "kind": "file"}},
		{"granted", []string{"--grant", "read:~/Downloads/report.csv", "--shell", "cat ~/Downloads/report.csv"}, 0, "allow", false, nil},
		{"folder grant", []string{"--grant", "read:" + e.downloads, "--op", "read", e.downloads + "/report.csv"}, 0, "allow", false, nil},
		{"write never eligible", []string{"--grant", "read:" + e.downloads, "--op", "write", e.downloads + "/report.csv"}, 1, "deny", false, nil},
		{"unproven", []string{"--shell", "eval cat main.go"}, 1, "deny", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"check", "--policy", e.policy}, tt.args...)
			code, stdout, stderr := runCLI(args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stdout %s stderr %s", code, tt.code, stdout, stderr)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(stdout), &got); err != nil || strings.Count(stdout, "\n") != 1 {
				t.Fatalf("stdout is not one JSON line: %q (%v)", stdout, err)
			}
			assertKeys(t, got, "decision", "eligible", "reason", "accesses", "suggested_scope")
			if got["decision"] != tt.decision || got["eligible"] != tt.eligible {
				t.Fatalf("got %v/%v, want %v/%v: %s", got["decision"], got["eligible"], tt.decision, tt.eligible, stdout)
			}
			for _, a := range got["accesses"].([]any) {
				assertKeys(t, a.(map[string]any), "op", "path", "allowed", "reason")
			}
			if tt.suggest == nil && got["suggested_scope"] != nil {
				t.Fatalf("suggested_scope = %v, want null", got["suggested_scope"])
			}
			if tt.suggest != nil {
				s, _ := got["suggested_scope"].(map[string]any)
				for k, v := range tt.suggest {
					if s[k] != v {
						t.Fatalf("suggested_scope = %v, want %v", s, tt.suggest)
					}
				}
			}
		})
	}
}

func assertKeys(t *testing.T, m map[string]any, keys ...string) {
	t.Helper()
	var got []string
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(keys)
	if !slices.Equal(got, keys) {
		t.Fatalf("keys %v, want exactly %v", got, keys)
	}
}

// TestCheckBadInput: every malformed input exits 2 with one line on stderr
// and nothing on stdout; nothing panics.
func TestCheckBadInput(t *testing.T) {
	e := newCheckEnv(t)
	malformed := e.write(t, "bad.json", `{"cwd": "/w", "workspace": [`)
	unknown := e.write(t, "unknown.json", `{"cwd": "`+e.work+`", "worksapce": ["`+e.work+`"]}`)
	relative := e.write(t, "relative.json", `{"cwd": "work"}`)
	trailing := e.write(t, "trailing.json", `{"cwd": "/"} {}`)
	tests := []struct {
		name string
		args []string
	}{
		{"no policy", []string{"--op", "read", "/x"}},
		{"unreadable policy", []string{"--policy", e.dir + "/missing.json", "--op", "read", "/x"}},
		{"malformed policy", []string{"--policy", malformed, "--op", "read", "/x"}},
		{"unknown policy field", []string{"--policy", unknown, "--op", "read", "/x"}},
		{"relative cwd", []string{"--policy", relative, "--op", "read", "/x"}},
		{"trailing data", []string{"--policy", trailing, "--op", "read", "/x"}},
		{"unknown op", []string{"--policy", e.policy, "--op", "chmod", "/x"}},
		{"no op", []string{"--policy", e.policy, "/x"}},
		{"no path", []string{"--policy", e.policy, "--op", "read"}},
		{"two paths", []string{"--policy", e.policy, "--op", "read", "/x", "/y"}},
		{"empty path", []string{"--policy", e.policy, "--op", "read", ""}},
		{"nul in path", []string{"--policy", e.policy, "--op", "read", "/x\x00"}},
		{"empty command", []string{"--policy", e.policy, "--shell", "  "}},
		{"unparsable shell", []string{"--policy", e.policy, "--shell", "cat 'open"}},
		{"shell and op", []string{"--policy", e.policy, "--shell", "ls", "--op", "read"}},
		{"bad grant", []string{"--policy", e.policy, "--grant", "read", "--shell", "ls"}},
		{"grant with bad op", []string{"--policy", e.policy, "--grant", "own:/x", "--shell", "ls"}},
		{"unknown flag", []string{"--policy", e.policy, "--bogus", "--shell", "ls"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(append([]string{"check"}, tt.args...)...)
			if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "pathgrant check: ") {
				t.Fatalf("exit %d stdout %q stderr %q; want 2, nothing, one line", code, stdout, stderr)
			}
		})
	}
}

// TestCheckBinary runs the built binary once, so the exit status is the
// process's own and not only Main's return value.
func TestCheckBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	e := newCheckEnv(t)
	bin := buildBinary(t)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"--shell", "cat main.go"}, 0},
		{[]string{"--shell", "cat ~/Downloads/report.csv"}, 1},
		{[]string{"--shell", ""}, 2},
	} {
		cmd := exec.Command(bin, append([]string{"check", "--policy", e.policy}, tc.args...)...)
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != tc.code {
			t.Errorf("%v: exit %d (%v), want %d", tc.args, code, err, tc.code)
		}
	}
}
