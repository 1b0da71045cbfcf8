package protected

import (
	"strings"
	"testing"
)

// TestMembersAreWellFormed: every row has a key, a name and a why, keys
// are unique (allow_protected names them), and Named finds each in any
// case.
func TestMembersAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Members() {
		t.Run(m.Key, func(t *testing.T) {
			switch {
			case m.Key == "" || m.Name == "" || m.Why == "":
				t.Fatalf("incomplete row %+v", m)
			case seen[strings.ToLower(m.Key)]:
				t.Fatalf("key %s twice", m.Key)
			case m.Kind == GitMember && m.Key != ".git/"+m.Name, m.Kind == Anywhere && m.Key != m.Name:
				t.Fatalf("key %s does not name %s", m.Key, m.Name)
			}
			seen[strings.ToLower(m.Key)] = true
			if got, ok := Named(strings.ToUpper(m.Key)); !ok || got.Key != m.Key {
				t.Fatalf("Named(%s) = %+v, %v", strings.ToUpper(m.Key), got, ok)
			}
		})
	}
	if _, ok := Named(".github"); ok {
		t.Fatal(".github is not a member")
	}
}

// TestMatchWithoutFS: with no file system at hand only the names decide.
func TestMatchWithoutFS(t *testing.T) {
	cases := []struct {
		path string
		want string
	}{
		{"/w/.git/config", ".git/config"}, {"/w/a/.GIT/Hooks/x", ".git/hooks"}, {"/w/.Vscode/x", ".vscode"},
		{"/w/sub/.git", ".git"}, {"/w/src/config", ""}, {"/w/.github/x", ""}, {"/w/.git/objects/x", ""},
		{"/w/.git-blame-ignore-revs", ""}, {"/w/x/HEAD", ""},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			m, ok := Match(tc.path, nil, nil)
			if (tc.want == "") == ok || m.Key != tc.want {
				t.Fatalf("Match(%s) = %q, %v; want %q", tc.path, m.Key, ok, tc.want)
			}
		})
	}
}

func TestHooksDir(t *testing.T) {
	cases := []struct{ config, want string }{
		{"[core]\n\thooksPath = .husky/_\n", "/w/.husky/_"},
		{"[core]\n\thookspath = \"/abs/hooks\"\n", "/abs/hooks"},
		{"[core] hooksPath = .githooks ; comment\n", "/w/.githooks"},
		{"[core]\n\thooksPath = a\n[core]\n\thooksPath = b\n", "/w/b"},
		{"[core]\n\thooksPath = ~/hooks\n", ""},
		{"[alias]\n\thooksPath = x\n", ""},
		{"[core]\n\tbare = false\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.config, func(t *testing.T) {
			if got := HooksDir(tc.config, "/w"); got != tc.want {
				t.Fatalf("HooksDir = %q, want %q", got, tc.want)
			}
		})
	}
}
