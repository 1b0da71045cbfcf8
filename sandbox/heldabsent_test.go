package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeldAbsentGitMembers: in a repository made without git's templates
// (no hooks/, no info/) and without worktree configuration, the view
// holds the places of hooks/, info/ and config.worktree: a command cannot
// create them, with no check after it, while git still works in the
// view. commondir is never held (git dies on a folder there), and a
// config.worktree that git reads is not either.
func TestHeldAbsentGitMembers(t *testing.T) {
	confine := confineBinary(t)
	cases := []struct {
		name, setup, script string
		held                bool
	}{
		{"hooks", "", `mkdir -p .git/hooks && printf '#!/bin/sh\ntouch %s\n' "$M" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`, true},
		{"info", "", `mkdir -p .git/info && echo '* filter=x' > .git/info/attributes`, true},
		{"config.worktree", "", `printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > .git/config.worktree`, true},
		{"config.worktree that git reads", "git config extensions.worktreeConfig true", `echo '[user]' > .git/config.worktree`, false},
		{"commondir", "", `echo "$PWD/.git" > .git/commondir`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws, mark, _ := persistWorkspace(t)
			repo := filepath.Join(ws, "bare-template")
			sh(t, ws, mark, `git init -q --template= bare-template && cd bare-template && echo a > a && git add a && git commit -qm a`+
				map[bool]string{true: " && " + tc.setup, false: ""}[tc.setup != ""])
			out, _ := runConfined(t, confine, repo, mark, tc.script+` && echo MADE; git status --short >/dev/null && git commit -q --allow-empty -m confined && echo GIT-WORKS`)
			if !strings.Contains(out, "GIT-WORKS") {
				t.Errorf("git no longer works in the view:\n%s", out)
			}
			if made := strings.Contains(out, "MADE"); made == tc.held {
				t.Errorf("made: %v, held: %v\n%s", made, tc.held, out)
			}
			for _, p := range []string{".git/hooks", ".git/info", ".git/config.worktree"} {
				if fi, err := os.Lstat(filepath.Join(repo, p)); tc.held && err == nil && fi.IsDir() {
					if es, _ := os.ReadDir(filepath.Join(repo, p)); len(es) == 0 {
						t.Errorf("the placeholder %s was left behind", p) // the view's own are removed after it
					}
				}
			}
		})
	}
}
