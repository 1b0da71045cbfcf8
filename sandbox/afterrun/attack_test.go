package afterrun

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// twoCommands are plants split over two commands of one session: the
// first leaves something the check after it has no reason to touch (a
// plain file in a plain folder, a pointer to a harmless folder), the
// second turns it into what git reads or runs without changing the
// planted file itself, so its change time lies before the second
// command's start. person is where the person then runs git.
var twoCommands = []struct {
	name, first, second, person string
}{
	{"common dir planted after its pointer",
		`mkdir -p evil && cp -r .git/objects .git/refs evil/ && echo "$PWD/evil" > sub/deep/.git/commondir`,
		`printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > evil/config`, "sub/deep"},
	{"config made first, common dir without HEAD pointed at later",
		`mkdir -p evil && cp -r .git/objects .git/refs evil/ && printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > evil/config`,
		`echo "$PWD/evil" > sub/deep/.git/commondir`, "sub/deep"},
	{"config made first, gitdir pointer made later",
		`mkdir -p stash p && printf '[core]\n\tbare = false\n\tworktree = %s\n\tfsmonitor = "touch %s; false"\n' "$PWD/p" "$M" > stash/config`,
		`mkdir -p stash/objects stash/refs && echo 'ref: refs/heads/main' > stash/HEAD && echo "gitdir: ../stash" > p/.git`, "p"},
	{"hooks made first, the folder moved into a new repository",
		`mkdir -p stash && printf '#!/bin/sh\ntouch %s\n' "$M" > stash/pre-commit && chmod +x stash/pre-commit`,
		`git init -q n && rm -r n/.git/hooks && mv stash n/.git/hooks`, "n"},
	{"a nested repository inside a folder git takes for a bare one",
		`true`,
		`mkdir -p b/objects b/refs && echo 'ref: refs/heads/main' > b/HEAD && git init -q b/n && git -C b/n config core.fsmonitor "touch $M; false"`, "b/n"},
}

// TestCheckOverTwoCommands: a plant laid over two commands is
// neutralised by the second check; the person's git runs nothing.
func TestCheckOverTwoCommands(t *testing.T) {
	for _, tc := range twoCommands {
		t.Run(tc.name, func(t *testing.T) {
			checkedTwice(t, tc.first, tc.second, tc.person)
		})
	}
}

// TestCheckOverTwoCommandsIsReal: without the checks, each plant runs.
func TestCheckOverTwoCommandsIsReal(t *testing.T) {
	for _, tc := range twoCommands {
		t.Run(tc.name, func(t *testing.T) {
			ws, mark := workspace(t)
			run(t, ws, mark, tc.first)
			run(t, ws, mark, tc.second)
			PersonRunsGit(t, filepath.Join(ws, tc.person))
			if _, err := os.Stat(mark); err != nil {
				t.Fatal("the plant did not run: the case tests nothing")
			}
		})
	}
}

// TestCheckLeavesPointersGitWrites: pointers git itself writes during a
// command (a linked worktree added or moved) and a submodule's lead to
// the person's own repositories, whose own configuration (keys git init
// never writes) stays in place, and nothing is reported.
func TestCheckLeavesPointersGitWrites(t *testing.T) {
	cases := []struct{ name, before, script string }{
		{"worktree add", `true`, `git worktree add -q wt && git -C wt commit -q --allow-empty -m w`},
		{"worktree move", `git worktree add -q wt`, `git worktree move wt wt2 && git -C wt2 commit -q --allow-empty -m w`},
		{"submodule work", `git -c protocol.file.allow=always submodule add -q "$PWD/sub/deep" s && git commit -qm s && git -C s config alias.st status`,
			`git -C s commit -q --allow-empty -m x && git submodule status >/dev/null`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws, mark := workspace(t)
			run(t, ws, mark, tc.before+` && git config pull.rebase true && git config alias.st status`)
			time.Sleep(3 * testSlack)
			since := start()
			run(t, ws, mark, tc.script)
			r, err := verify([]string{ws}, since, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Findings) != 0 {
				t.Fatalf("normal work reported:\n%s", strings.Join(r.Lines(), "\n"))
			}
		})
	}
}

// TestCheckTouchesNothingOutside: a command cannot make the check rename,
// empty or change the modes of files outside the write areas by links in
// the places the check looks (a linked worktrees, modules or info
// folder, core.hooksPath through a linked folder), even when the person
// changed those files while the command ran.
func TestCheckTouchesNothingOutside(t *testing.T) {
	cases := []struct{ name, script string }{
		{"linked worktrees folder", `ln -s "$O" .git/worktrees`},
		{"linked modules folder", `ln -s "$O" .git/modules`},
		{"linked worktrees folder of a repository reached fresh", `git init -q --bare q && ln -s "$O" q/worktrees && mkdir p && echo "gitdir: ../q" > p/.git`},
		{"hooksPath through a linked folder", `git init -q n && ln -s "$O" n/lnk && git -C n config core.hooksPath lnk/bin`},
		{"linked info folder", `git init -q n && rm -r n/.git/info && ln -s "$O/proj/.git" n/.git/info`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws, mark := workspace(t)
			other := filepath.Join(filepath.Dir(ws), "other")
			run(t, filepath.Dir(ws), mark, `mkdir -p other/bin other/proj && cd other/proj && git init -q && git init -q --bare ../bare.git`)
			time.Sleep(3 * testSlack)
			since := start()
			// The person's own work outside, while the command runs.
			run(t, other, mark, `printf '#!/bin/sh\n' > bin/tool && chmod 0755 bin/tool && mkdir -p proj/.vscode && echo '{}' > proj/.vscode/tasks.json && `+
				`git -C proj config alias.st status && git -C bare.git config alias.st status && echo '* text' > proj/.git/attributes && chmod 0700 proj`)
			before := tree(t, other)
			script := strings.ReplaceAll(tc.script, `"$O"`, shellWord(other))
			run(t, ws, mark, script)
			r, _ := verify([]string{ws}, since, nil)
			if after := tree(t, other); after != before {
				t.Fatalf("the check changed files outside the workspace:\nbefore:\n%s\nafter:\n%s\nreport:\n%s", before, after, strings.Join(r.Lines(), "\n"))
			}
		})
	}
}

// tree lists every path under root with its mode and size.
func tree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d\n", strings.TrimPrefix(p, root), fi.Mode(), fi.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func shellWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestCheckWalksBelowCaseVariantsOfGit: on a case-sensitive file system
// a folder named .GIT is a plain folder to git and to the agents; what a
// command hides below one (an agent's settings, a repository) is checked
// like anything else.
func TestCheckWalksBelowCaseVariantsOfGit(t *testing.T) {
	ws, mark := workspace(t)
	since := start()
	run(t, ws, mark, `mkdir -p x/.GIT/app/.claude && echo '{}' > x/.GIT/app/.claude/settings.json && `+
		`git init -q x/.Git/n && git -C x/.Git/n config core.fsmonitor "touch $M; false"`)
	r, err := verify([]string{ws}, since, nil)
	if err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(ws, "x/.GIT/app/.claude")) {
		t.Errorf("x/.GIT/app/.claude is still there; report:\n%s", strings.Join(r.Lines(), "\n"))
	}
	PersonRunsGit(t, filepath.Join(ws, "x/.Git/n"))
	if _, err := os.Stat(mark); err == nil {
		t.Fatalf("the person's git ran the plant; report:\n%s", strings.Join(r.Lines(), "\n"))
	}
}

// TestCheckWorktreeOutside: core.worktree is a key git init and clone
// write, but one made during the command that names a folder outside the
// write areas turns the person's own git checkout, stash or reset in
// that repository into writes there (a .bashrc from the command's
// index). It is neutralised; one inside the areas (a submodule's) is
// left.
func TestCheckWorktreeOutside(t *testing.T) {
	ws, mark := workspace(t)
	other := filepath.Join(filepath.Dir(ws), "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	since := start()
	run(t, ws, mark, `git init -q n && printf 'touch %s\n' "$M" > n/.bashrc && git -C n add .bashrc && git -C n config core.worktree `+shellWord(other)+` && `+
		`git init -q m && mkdir m2 && git -C m config core.worktree ../../m2`)
	r, err := verify([]string{ws}, since, nil)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "checkout", "--", ".")
	cmd.Dir, cmd.Env = filepath.Join(ws, "n"), gitEnv(t.TempDir())
	cmd.Run()
	if exists(filepath.Join(other, ".bashrc")) {
		t.Fatalf("the person's git checkout wrote outside the workspace; report:\n%s", strings.Join(r.Lines(), "\n"))
	}
	if strings.Contains(strings.Join(r.Lines(), "\n"), "/m/") {
		t.Fatalf("a worktree inside the workspace reported:\n%s", strings.Join(r.Lines(), "\n"))
	}
}

// TestCheckReadsPointersAsGitDoes: git keeps the spaces around the path
// in a commondir file (it trims only the line end) and after "gitdir: "
// in a .git file, so "evil " (a folder whose name ends in a space) is
// where it reads configuration, not a decoy "evil" beside it.
func TestCheckReadsPointersAsGitDoes(t *testing.T) {
	cases := []struct{ name, first, second, person string }{
		{"commondir with a trailing space", `true`,
			`mkdir -p "evil " evil && cp -r .git/objects .git/refs "evil /" && printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > "evil /config" && printf '%s\n' "$PWD/evil " > .git/commondir`, "."},
		{"gitdir with a trailing space, config made first",
			`mkdir -p "stash " p && printf '[core]\n\tbare = false\n\tworktree = %s\n\tfsmonitor = "touch %s; false"\n' "$PWD/p" "$M" > "stash /config"`,
			`mkdir -p "stash /objects" "stash /refs" stash/objects stash/refs && echo 'ref: refs/heads/main' > "stash /HEAD" && cp "stash /HEAD" stash/ && printf 'gitdir: ../stash \n' > p/.git`, "p"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkedTwice(t, tc.first, tc.second, tc.person)
		})
	}
}

// checkedTwice runs first and second as two commands, each checked after
// it, then the person's git in person: it fails the test when a plant ran.
func checkedTwice(t *testing.T, first, second, person string) {
	t.Helper()
	ws, mark := workspace(t)
	since := start()
	run(t, ws, mark, first)
	if _, err := verify([]string{ws}, since, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * testSlack)
	since = start()
	run(t, ws, mark, second)
	r, err := verify([]string{ws}, since, nil)
	if err != nil {
		t.Fatal(err)
	}
	PersonRunsGit(t, filepath.Join(ws, person))
	if _, err := os.Stat(mark); err == nil {
		t.Fatalf("the person's git ran the plant; report:\n%s", strings.Join(r.Lines(), "\n"))
	}
}
