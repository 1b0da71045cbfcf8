package afterrun

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// plant is one way of changing what git reads or runs, as a shell
// script run in a workspace holding a repository (with one commit) and a
// nested one at sub/deep. $M is the marker a planted program touches;
// person is where the person then runs git status and git commit.
type plant struct {
	name, script, person string
}

// Plants are the attacks on git; the afterrun check must leave the
// person's git running none of them.
var Plants = []plant{
	{"hook", `printf '#!/bin/sh\ntouch %s\n' "$M" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`, "."},
	{"config fsmonitor", `git config core.fsmonitor "touch $M; false"`, "."},
	{"config one-line header", `printf '[core] fsmonitor = "touch %s; false"\n' "$M" >> .git/config`, "."},
	{"config hooksPath", `mkdir -p h && printf '#!/bin/sh\ntouch %s\n' "$M" > h/pre-commit && chmod +x h/pre-commit && git config core.hooksPath "$PWD/h"`, "."},
	{"config include", `printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > inc && git config include.path "$PWD/inc"`, "."},
	{"commondir", `mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/ && printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > evil/config && echo "$PWD/evil" > .git/commondir`, "."},
	{"config.worktree", `git config extensions.worktreeConfig true && printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > .git/config.worktree`, "."},
	{"nested repository config", `git -C sub/deep config core.fsmonitor "touch $M; false"`, "sub/deep"},
	{"nested repository hook", `printf '#!/bin/sh\ntouch %s\n' "$M" > sub/deep/.git/hooks/pre-commit; chmod +x sub/deep/.git/hooks/pre-commit`, "sub/deep"},
	{"repository made by the command", `git init -q new && git -C new config core.fsmonitor "touch $M; false"`, "new"},
	{"repository made by hand deep", `mkdir -p d1/d2/d3 && git init -q d1/d2/d3 && printf '#!/bin/sh\ntouch %s\n' "$M" > d1/d2/d3/.git/hooks/pre-commit && chmod +x d1/d2/d3/.git/hooks/pre-commit`, "d1/d2/d3"},
	{"gitdir pointer", `mkdir -p p evil && git init -q --bare evil && printf '[core]\n\tfsmonitor = "touch %s; false"\n\tbare = false\n\tworktree = %s\n' "$M" "$PWD/p" > evil/config && echo "gitdir: ../evil" > p/.git`, "p"},
	{"gitdir pointer out", `mkdir -p p "$PWD/../evil-out" && git init -q --bare "$PWD/../evil-out" && printf '[core]\n\tfsmonitor = "touch %s; false"\n\tbare = false\n' "$M" > "$PWD/../evil-out"/config && echo "gitdir: $PWD/../evil-out" > p/.git`, "p"},
	{"bare repository", `git init -q --bare b.git && git -C b.git config core.bare false && git -C b.git config core.worktree "$PWD" && git -C b.git config core.fsmonitor "touch $M; false"`, "b.git"},
	{"linked worktree commondir", `git worktree add -q wt && mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/ && printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > evil/config && echo "$PWD/evil" > .git/worktrees/wt/commondir`, "wt"},
	{"hooksPath folder the person set", `git config core.hooksPath .githooks && mkdir -p .githooks && sleep 0.05 && printf '#!/bin/sh\ntouch %s\n' "$M" > .githooks/pre-commit && chmod +x .githooks/pre-commit`, "."},
	{"commondir out", `mkdir -p "$PWD/../evil-out" && cp -r .git/objects .git/refs .git/HEAD "$PWD/../evil-out"/ && printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > "$PWD/../evil-out"/config && echo "$PWD/../evil-out" > .git/commondir`, "."},
	{"submodule hook", `mkdir -p .git/modules && git init -q --separate-git-dir="$PWD/.git/modules/s" s && printf '#!/bin/sh\ntouch %s\n' "$M" > .git/modules/s/hooks/pre-commit && chmod +x .git/modules/s/hooks/pre-commit`, "s"},
	{"submodule config", `mkdir -p .git/modules && git init -q --separate-git-dir="$PWD/.git/modules/s" s && git -C s config core.fsmonitor "touch $M; false"`, "s"},
	// The command turns permissions and names against the check (as an
	// ordinary user: root reads any folder whatever its mode).
	{"commondir, its quarantine name taken first", `mkdir .git/commondir.pathgrant-quarantined && mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/ && printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > evil/config && echo "$PWD/evil" > .git/commondir`, "."},
	{"common dir without HEAD", `mkdir -p evil && cp -r .git/objects .git/refs evil/ && printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > evil/config && echo "$PWD/evil" > .git/commondir`, "."},
	{"config 0444 in a 0555 git folder", `git config core.fsmonitor "touch $M; false" && chmod 0444 .git/config && chmod 0555 .git`, "."},
	{"nested repository behind a 0311 folder", `mkdir -p d && git init -q d/n && git -C d/n config core.fsmonitor "touch $M; false" && chmod 0311 d`, "d/n"},
	{"workspace made 0311", `git -C sub/deep config core.fsmonitor "touch $M; false" && chmod 0311 .`, "sub/deep"},
	{"git folder made 0311", `git -C sub/deep config core.fsmonitor "touch $M; false" && chmod 0311 sub/deep/.git`, "sub/deep"},
	{"hooks folder made 0311", `printf '#!/bin/sh\ntouch %s\n' "$M" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; chmod 0311 .git/hooks`, "."},
	{"hook 0000", `printf '#!/bin/sh\ntouch %s\n' "$M" > .git/hooks/post-checkout; chmod 0111 .git/hooks/post-checkout && git config core.fsmonitor "touch $M; false"`, "."},
}

func TestVerifyNeutralisesEveryPlant(t *testing.T) {
	for _, p := range Plants {
		t.Run(p.name, func(t *testing.T) {
			ws, mark := workspace(t)
			since := start()
			run(t, ws, mark, p.script)
			r, err := verify([]string{ws}, since, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Findings) == 0 {
				t.Fatal("nothing reported")
			}
			PersonRunsGit(t, filepath.Join(ws, p.person))
			if _, err := os.Stat(mark); err == nil {
				t.Fatalf("the person's git ran the planted program; report:\n%s", strings.Join(r.Lines(), "\n"))
			}
		})
	}
}

// TestVerifyWithoutItGitRunsThePlant shows each plant is real: without
// Verify, the person's git runs it.
func TestVerifyWithoutItGitRunsThePlant(t *testing.T) {
	for _, p := range Plants {
		t.Run(p.name, func(t *testing.T) {
			ws, mark := workspace(t)
			run(t, ws, mark, p.script)
			PersonRunsGit(t, filepath.Join(ws, p.person))
			if _, err := os.Stat(mark); err != nil {
				t.Fatal("the plant did not run without Verify: the case tests nothing")
			}
		})
	}
}

// TestVerifyLeavesNormalWorkAlone: git's normal work during a command is
// not reported, and the repositories still work after.
func TestVerifyLeavesNormalWorkAlone(t *testing.T) {
	cases := []struct{ name, script, person string }{
		{"commit branch stash", `echo b > b && git add b && git commit -qm b && git branch feat && git checkout -q feat && echo c > b && git stash -q && git checkout -q -`, "."},
		{"worktree add", `git worktree add -q wt && git -C wt commit -q --allow-empty -m w`, "wt"},
		{"init add commit", `git init -q n && cd n && echo x > x && git add x && git commit -qm x && git branch b2`, "n"},
		{"clone", `git clone -q "$PWD" cl`, "cl"},
		{"bare init", `git init -q --bare nb.git`, "."},
		{"submodule-like separate gitdir", `mkdir -p .git/modules && git init -q --separate-git-dir="$PWD/.git/modules/s" s`, "s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws, mark := workspace(t)
			since := start()
			run(t, ws, mark, tc.script)
			r, err := verify([]string{ws}, since, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Findings) != 0 {
				t.Fatalf("normal work reported:\n%s", strings.Join(r.Lines(), "\n"))
			}
			PersonRunsGit(t, filepath.Join(ws, tc.person))
		})
	}
}

func TestVerifyProtectedMembersMadeDuringTheCommand(t *testing.T) {
	ws, mark := workspace(t)
	old := filepath.Join(ws, ".envrc")
	if err := os.WriteFile(old, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	since := start()
	run(t, ws, mark, `mkdir -p x/.vscode && echo '{}' > x/.vscode/tasks.json && echo '{}' > .MCP.json && echo ok > x/.idea.md`)
	r, err := verify([]string{ws}, since, []string{".envrc"})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(r.Lines(), "\n")
	for _, gone := range []string{"x/.vscode", ".MCP.json"} {
		if _, err := os.Lstat(filepath.Join(ws, gone)); err == nil {
			t.Errorf("%s is still there; report:\n%s", gone, lines)
		}
		if !strings.Contains(lines, gone) {
			t.Errorf("%s not reported:\n%s", gone, lines)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "x/.idea.md")); err != nil {
		t.Error("a benign twin was moved")
	}
}

func TestRemovePlaceholders(t *testing.T) {
	d := t.TempDir()
	empty, full, dir := filepath.Join(d, ".mcp.json"), filepath.Join(d, ".envrc"), filepath.Join(d, ".vscode")
	os.WriteFile(empty, nil, 0o644)
	os.WriteFile(full, []byte("x"), 0o644)
	os.Mkdir(dir, 0o755)
	lines := RemovePlaceholders([]string{empty, full, dir, filepath.Join(d, "absent")})
	if len(lines) == 1 && lines[0].Path != full {
		t.Fatalf("the wrong placeholder said: %v", lines)
	}
	if exists(empty) || exists(dir) || !exists(full) || len(lines) != 1 {
		t.Fatalf("placeholders: %v", lines)
	}
	// A placeholder made inside another (a view pinned the outer one,
	// made by a command before it): whatever the order given, both go.
	outer := filepath.Join(d, ".cline")
	inner := filepath.Join(outer, "agents")
	os.MkdirAll(inner, 0o755)
	if lines := RemovePlaceholders([]string{outer, inner}); len(lines) != 0 || exists(outer) {
		t.Fatalf("nested placeholders: %v, outer left: %v", lines, exists(outer))
	}
}

// workspace is a folder holding a repository with one commit and a
// nested repository at sub/deep; mark is the marker path, outside it.
func workspace(t *testing.T) (ws, mark string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, mark = filepath.Join(root, "ws"), filepath.Join(root, "MARK")
	if err := os.MkdirAll(filepath.Join(ws, "sub/deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, ws, mark, `git init -q . && echo a > a && git add a && git commit -qm a && git -C sub/deep init -q && git -C sub/deep commit -q --allow-empty -m s`)
	time.Sleep(testSlack * 3)                // set-up changes lie before the command's start
	t.Cleanup(func() { restoreModes(root) }) // before TempDir's removal: a command may have taken them away
	return ws, mark
}

// testSlack stands for clockSlack in the tests: the kernel's coarse clock
// lags by a tick at most on the file systems tests run on.
const testSlack = 20 * time.Millisecond

// start is the command's start as Verify is told it.
func start() time.Time { return time.Now().Add(-testSlack) }

// gitEnv is a person's git with no global or system configuration.
func gitEnv(home string) []string {
	return append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=p", "GIT_AUTHOR_EMAIL=p@x",
		"GIT_COMMITTER_NAME=p", "GIT_COMMITTER_EMAIL=p@x", "XDG_CONFIG_HOME="+home)
}

func run(t *testing.T, dir, mark, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-ec", script)
	cmd.Dir, cmd.Env = dir, append(gitEnv(t.TempDir()), "M="+mark)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// PersonRunsGit runs the person's own git status and git commit in dir,
// outside any confinement.
func PersonRunsGit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"status"}, {"commit", "-q", "--allow-empty", "-m", "person"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, gitEnv(t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("git %s in %s: %v\n%s", args[0], dir, err, out)
		}
	}
}

// TestBeginReadsTheFileSystemClock: a change made right after Begin
// counts as made during the command, one made before does not, and Begin
// leaves nothing behind.
func TestBeginReadsTheFileSystemClock(t *testing.T) {
	ws, mark := workspace(t)
	plan := Begin([]string{ws}, true)
	run(t, ws, mark, `git config core.fsmonitor "touch $M; false"`)
	r, err := Check(plan)
	if err != nil || len(r.Findings) != 1 {
		t.Fatalf("a change right after Begin: %v %v", r.Lines(), err)
	}
	es, _ := os.ReadDir(ws)
	for _, e := range es {
		if strings.HasPrefix(e.Name(), ".pathgrant-start") {
			t.Fatalf("Begin left %s", e.Name())
		}
	}
	if r, _ := Check(Begin([]string{ws}, true)); len(r.Findings) != 0 {
		t.Fatalf("changes before Begin reported: %v", r.Lines())
	}
}

// TestBeginPinnedMembers: a member at the top of the workspace when the
// command started was kept read-only by the view; a change in it since
// (the agent writing its own settings, outside) is not moved aside. One
// made during the command, at the top or deeper, is.
func TestBeginPinnedMembers(t *testing.T) {
	ws, mark := workspace(t)
	run(t, ws, mark, "mkdir .claude")
	time.Sleep(3 * testSlack)
	plan := Begin([]string{ws}, true)
	run(t, ws, mark, "echo '{}' > .claude/settings.local.json && echo x > .envrc && mkdir -p s/.claude && echo x > s/.claude/x")
	r, err := Check(plan)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(r.Lines(), "\n")
	if !exists(filepath.Join(ws, ".claude/settings.local.json")) || exists(filepath.Join(ws, ".envrc")) || exists(filepath.Join(ws, "s/.claude")) {
		t.Fatalf("after Verify:\n%s", lines)
	}
}

// verify is Check counting changes from since.
func verify(writeAreas []string, since time.Time, open []string) (Report, error) {
	return newVerifier(writeAreas, since, open).run()
}

// restoreModes gives the owner back every permission under root, so that
// the test's folder can be removed whatever a plant did to modes.
func restoreModes(root string) {
	_ = os.Chmod(root, 0o755)
	for range 8 { // each pass opens what the last one could not enter
		denied := false
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if d != nil && d.Type()&fs.ModeSymlink == 0 {
				_ = chmodAdd(p, 0o700)
			}
			denied = denied || err != nil
			return nil
		})
		if !denied {
			return
		}
	}
}
