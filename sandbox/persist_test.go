package sandbox_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pathgrant/guard"
	"pathgrant/hooks/clientconfig"
	"pathgrant/internal/buildcheck"
	"pathgrant/sandbox"
	"pathgrant/sandbox/afterrun"
	"pathgrant/sandbox/rules"
	"pathgrant/wire"
)

// persistCase is one way of changing what git reads or runs, tried as a
// real confined command (the view and the rules the daemon's Launcher
// builds) and as the Write tool's calls (guard decisions on writes).
// Afterwards the person's own git status and git commit, outside, must
// run nothing it planted: the planted program touches $M.
type persistCase struct {
	name   string
	script string // the confined command, in the workspace
	// writes are the Write tool calls of the same attack, in order, as
	// "path\x00content" ({M} is the marker); each the guard allows is made.
	writes []string
	person string // where the person then runs git
}

const fsmonWrite = "[core]\n\tfsmonitor = \"touch {M}; false\"\n"
const hookWrite = "#!/bin/sh\ntouch {M}\n"

const hook = `printf '#!/bin/sh\ntouch %s\n' "$M"`
const fsmon = `printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M"`

var persistCases = []persistCase{
	{"config", `git config core.fsmonitor "touch $M; false"`, []string{".git/config\x00" + fsmonWrite}, "."},
	{"config.worktree", fsmon + ` > .git/config.worktree && git config extensions.worktreeConfig true`, []string{".git/config.worktree\x00" + fsmonWrite, ".git/config\x00[extensions]\n\tworktreeConfig = true\n"}, "."},
	{"commondir", `mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/ && ` + fsmon + ` > evil/config && echo "$PWD/evil" > .git/commondir`, []string{"evil/config\x00" + fsmonWrite, "evil/HEAD\x00ref: refs/heads/master\n", ".git/commondir\x00../evil\n"}, "."},
	{"hooks", hook + ` > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`, []string{".git/hooks/pre-commit\x00" + hookWrite}, "."},
	{"info", `printf '* filter=x\n' > .git/info/attributes`, []string{".git/info/attributes\x00* filter=x\n"}, "."},
	{"worktrees", `git worktree add -q wt && ` + fsmon + ` > .git/worktrees/wt/config.worktree && mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/ && ` + fsmon + ` > evil/config && echo "$PWD/evil" > .git/worktrees/wt/commondir`, []string{".git/worktrees/wt/commondir\x00../../../evil\n", "wt/.git\x00gitdir: ../.git/worktrees/wt\n"}, "wt"},
	{"modules", `mkdir -p .git/modules && git init -q --separate-git-dir="$PWD/.git/modules/s" s && ` + hook + ` > .git/modules/s/hooks/pre-commit && chmod +x .git/modules/s/hooks/pre-commit`, []string{".git/modules/sub2/hooks/pre-commit\x00" + hookWrite}, "s"},
	{"moved aside", `mv .git/hooks .git/h2 && mkdir .git/hooks && ` + hook + ` > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`, []string{".git/hooks\x00x"}, "."},
	{"nested repository", `git -C sub/deep config core.fsmonitor "touch $M; false"`, []string{"sub/deep/.git/config\x00" + fsmonWrite}, "sub/deep"},
	{"nested repository hook", hook + ` > sub/deep/.git/hooks/post-commit && chmod +x sub/deep/.git/hooks/post-commit`, []string{"sub/deep/.git/hooks/post-commit\x00" + hookWrite}, "sub/deep"},
	{"repository made by the command", `git init -q x && ` + fsmon + ` >> x/.git/config`, []string{"x/.git/HEAD\x00ref: refs/heads/master\n", "x/.git/config\x00" + fsmonWrite}, "x"},
	{"repository made deep", `mkdir -p d1/d2/d3/d4/d5/d6/d7 && git init -q d1/d2/d3/d4/d5/d6/d7 && ` + hook + ` > d1/d2/d3/d4/d5/d6/d7/.git/hooks/pre-commit && chmod +x d1/d2/d3/d4/d5/d6/d7/.git/hooks/pre-commit`, []string{"d1/d2/d3/d4/d5/d6/d7/.git/hooks/pre-commit\x00" + hookWrite}, "d1/d2/d3/d4/d5/d6/d7"},
	{"gitdir pointer", `mkdir -p p && git init -q --bare evil && git -C evil config core.bare false && git -C evil config core.worktree "$PWD/p" && git -C evil config core.fsmonitor "touch $M; false" && echo "gitdir: ../evil" > p/.git`, []string{"evil/config\x00[core]\n\tbare = false\n\tfsmonitor = \"touch {M}; false\"\n", "evil/HEAD\x00ref: refs/heads/master\n", "p/.git\x00gitdir: ../evil\n"}, "p"},
	{"existing gitdir target", `git -C gd config core.fsmonitor "touch $M; false"`, []string{"gd/config\x00" + fsmonWrite}, "linked"},
	{"hooksPath folder", hook + ` > hp/.githooks/pre-commit && chmod +x hp/.githooks/pre-commit`, []string{"hp/.githooks/pre-commit\x00" + hookWrite}, "hp"},
	{"submodule", `git -C sub2 config core.fsmonitor "touch $M; false"`, []string{".git/modules/sub2/config\x00" + fsmonWrite}, "sub2"},
}

// TestGitPersistence runs every case confined and through the guard; the
// person's git then runs nothing planted.
func TestGitPersistence(t *testing.T) {
	confine := confineBinary(t)
	for _, tc := range persistCases {
		t.Run(tc.name, func(t *testing.T) {
			writeTool(t, tc)
			ws, mark, _ := persistWorkspace(t)
			since := afterrun.Begin([]string{ws}, true)
			out, _ := runConfined(t, confine, ws, mark, tc.script)
			lines := afterRun(t, ws, since)
			personGit(t, filepath.Join(ws, tc.person))
			if _, err := os.Stat(mark); err == nil {
				t.Fatalf("the person's git ran the planted program\ncommand output:\n%s\nafterrun:\n%s", out, strings.Join(lines, "\n"))
			}
		})
	}
}

// writeTool makes the case's Write tool calls the guard allows, in a
// workspace of their own; at least one is denied, and the person's git
// runs nothing.
func writeTool(t *testing.T, tc persistCase) {
	t.Helper()
	ws, mark, p := persistWorkspace(t)
	denied := 0
	for _, w := range tc.writes {
		rel, content, _ := strings.Cut(w, "\x00")
		path := filepath.Join(ws, rel)
		d, err := guard.Evaluate(p, nil, guard.Request{Op: guard.OpWrite, Path: path})
		if err != nil || d.Verdict != guard.Allow {
			denied++
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(content, "{M}", mark)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if denied == 0 {
		t.Errorf("the guard allowed every Write of %v", tc.writes)
	}
	personGit(t, filepath.Join(ws, tc.person))
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("after the allowed Write calls the person's git ran the planted program")
	}
}

// TestGitPersistenceCasesAreReal: run unconfined and unchecked, each
// attack makes the person's git run the planted program, so the cases
// above test something. info/attributes only selects drivers the
// person's own configuration defines: nothing of the writer's runs.
func TestGitPersistenceCasesAreReal(t *testing.T) {
	confineBinary(t)
	for _, tc := range persistCases {
		if tc.name == "info" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			ws, mark, _ := persistWorkspace(t)
			sh(t, ws, mark, tc.script)
			personGit(t, filepath.Join(ws, tc.person))
			if _, err := os.Stat(mark); err != nil {
				t.Fatal("the attack does not run unconfined: the case tests nothing")
			}
		})
	}
}

// TestGitPersistenceTwins: normal work keeps working confined, and
// leaves nothing to report.
func TestGitPersistenceTwins(t *testing.T) {
	confine := confineBinary(t)
	twins := []struct{ name, script string }{
		{"add commit branch checkout stash", `echo b > b && git add b && git commit -qm b && git branch feat && git checkout -q feat && echo c > b && git stash -q && git checkout -q - && git log --oneline | wc -l`},
		{"worktree add", `git worktree add -q wt2 && git -C wt2 commit -q --allow-empty -m w`},
		{"init add commit branch", `git init -q n && cd n && echo x > x && git add x && git commit -qm x && git branch b2 && git worktree add -q ../n-wt b2`},
		{"nested commit", `cd sub/deep && echo y > y && git add y && git commit -qm y`},
		{"linked worktree commit", `cd linked && git commit -q --allow-empty -m l`},
		{"other files at the top", `echo x > other.json && echo x > src-config && mkdir -p docs/hooks && echo x > docs/hooks/x.md`},
		{"add everything and commit (placeholders ignored)", `echo n > new && git add -A && git commit -qm all && test -z "$(git status --porcelain)"`},
	}
	for _, tc := range twins {
		t.Run(tc.name, func(t *testing.T) {
			ws, mark, _ := persistWorkspace(t)
			since := afterrun.Begin([]string{ws}, true)
			if out, err := runConfined(t, confine, ws, mark, "set -e; "+tc.script); err != nil {
				t.Fatalf("confined: %v\n%s", err, out)
			}
			if lines := afterRun(t, ws, since); len(lines) > 0 {
				t.Fatalf("normal work reported:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}

// TestAbsentMembersCannotBeCreated: an absent protected member at the top
// of the workspace that tools run by themselves (Hold) cannot be created
// in the view; any other made there is moved aside and reported after the
// command; none is left behind.
func TestAbsentMembersCannotBeCreated(t *testing.T) {
	confine := confineBinary(t)
	for _, m := range []string{".mcp.json", ".vscode/tasks.json", ".claude/settings.json", ".idea/x.xml", ".codex/config.toml", ".MCP.JSON", ".envrc", ".bashrc", ".gitmodules"} {
		t.Run(m, func(t *testing.T) {
			ws, mark, _ := persistWorkspace(t)
			since := afterrun.Begin([]string{ws}, true)
			script := "mkdir -p \"$(dirname " + m + ")\"; echo x > " + m + " && echo WROTE; echo y > other.json && echo OTHER"
			out, _ := runConfined(t, confine, ws, mark, script)
			lines := afterRun(t, ws, since)
			held := m == strings.ToLower(m) && !slices.Contains([]string{".envrc", ".bashrc", ".gitmodules"}, m)
			if (held && strings.Contains(out, "WROTE")) || !strings.Contains(out, "OTHER") {
				t.Fatalf("%s: output %q, want the member refused and other.json written", m, out)
			}
			if !held && !strings.Contains(strings.Join(lines, "\n"), m) {
				// the view holds the place of the spelling agents read, of
				// what tools run by themselves; any other made is moved
				// aside and reported after
				t.Fatalf("%s made in another case and not reported: %v", m, lines)
			}
			top := strings.Split(m, "/")[0]
			if _, err := os.Lstat(filepath.Join(ws, top)); err == nil {
				t.Errorf("%s left in the workspace (afterrun: %v)", top, lines)
			}
			if _, err := os.Lstat(filepath.Join(ws, ".mcp.json")); err == nil {
				t.Errorf(".mcp.json left in the workspace (afterrun: %v)", lines)
			}
		})
	}
}

var confineOnce struct {
	sync.Once
	path string
	err  error
}

// confineBinary builds pathgrant-confine (the inner step) once, or takes
// the prebuilt one (buildcheck.BinDirEnv), or skips where bubblewrap and
// Landlock are not both there.
func confineBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the inner step and runs commands confined")
	}
	if c := sandbox.Probe(); c.Level != sandbox.LevelFull {
		t.Skipf("confinement here is %q: %v", c.Level, c.Gaps)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if p := buildcheck.Prebuilt(t, sandbox.ConfineName); p != "" {
		return p
	}
	confineOnce.Do(func() {
		dir, err := os.MkdirTemp("", "persist-bin")
		if err != nil {
			confineOnce.err = err
			return
		}
		confineOnce.path = filepath.Join(dir, sandbox.ConfineName)
		cmd := exec.Command(buildcheck.GoTool(), "build", "-o", confineOnce.path, "pathgrant/cmd/pathgrant-confine")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			confineOnce.err = err
			t.Logf("%s", out)
		}
	})
	if confineOnce.err != nil {
		t.Fatal(confineOnce.err)
	}
	return confineOnce.path
}

// persistWorkspace is the person's workspace: a repository with a commit,
// a nested one at sub/deep, a linked worktree whose git directory gd lies
// in the workspace (linked/.git: gitdir: ../gd), and a submodule-like
// sub2 whose git directory is .git/modules/sub2. The policy is the one
// the daemon compiles for a session over it.
func persistWorkspace(t *testing.T) (ws, mark string, p *guard.Compiled) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, mark = filepath.Join(root, "ws"), filepath.Join(root, "MARK")
	if err := os.MkdirAll(filepath.Join(ws, "sub/deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	sh(t, ws, mark, `git init -q . && echo a > a && git add a && git commit -qm a && git -C sub/deep init -q && git -C sub/deep commit -q --allow-empty -m s &&
		git worktree add -q linked && mv .git/worktrees/linked gd && echo "gitdir: $PWD/gd" > linked/.git && echo "$PWD/.git" > gd/commondir &&
		mkdir -p .git/modules && git init -q --separate-git-dir="$PWD/.git/modules/sub2" sub2 && git -C sub2 commit -q --allow-empty -m s2 &&
		git init -q hp && git -C hp commit -q --allow-empty -m h && mkdir hp/.githooks && git -C hp config core.hooksPath .githooks`)
	time.Sleep(20 * time.Millisecond) // the person's set-up lies a clock tick before the command
	p, err = guard.Policy{SessionPolicy: guard.SessionPolicy{Cwd: ws, Workspace: []string{ws}},
		DevicePolicy: guard.DevicePolicy{Protected: daemonProtected(ws)}}.Compile(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws, mark, p
}

// daemonProtected is what the daemon joins to a workspace root
// (ipc.workspaceProtected): the client table's hook settings and the top
// of the protected set.
func daemonProtected(ws string) []string {
	var out []string
	for _, rel := range slices.Concat(clientconfig.ProjectProtected(), guard.WorkspaceProtected(nil)) {
		out = append(out, filepath.Join(ws, rel))
	}
	return out
}

// runConfined runs script in the view and under the rules the daemon's
// Launcher prepares for a session over ws.
func runConfined(t *testing.T, confine, ws, mark, script string) (string, error) {
	t.Helper()
	tmp := t.TempDir()
	in := sandbox.Input{Policy: wire.Policy{Session: "s", Workspace: []string{ws}, Protected: daemonProtected(ws)},
		TmpDir: tmp, System: sandbox.SystemRules()}
	fsys := sandbox.NewMemoFS(sandbox.OSFS{})
	inner, bins := sandbox.InnerStep(confine)
	bins.EmptyDir = sandbox.EmptyDirIn(t.TempDir())
	view, err := sandbox.BuildView(in, bins, fsys)
	if err != nil {
		t.Fatal(err)
	}
	in.ByMount, in.PrivateTmp = view.ByMount, true
	rs, err := sandbox.Build(in, fsys)
	if err != nil {
		t.Fatal(err)
	}
	job, err := json.Marshal(rules.Job{Rules: rs, Path: "/bin/sh", Argv: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	jf := filepath.Join(t.TempDir(), "job")
	if err := os.WriteFile(jf, job, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(jf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("bwrap", slices.Concat(view.Options(os.Geteuid() == 0), []string{"--"}, inner, []string{"3"})...)
	cmd.ExtraFiles, cmd.Dir = []*os.File{f}, ws
	cmd.Env = append(personEnv(tmp), "M="+mark, "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	t.Cleanup(func() {
		for _, l := range afterrun.RemovePlaceholders(view.Placeholders) {
			t.Log(l)
		}
	})
	for _, l := range afterrun.RemovePlaceholders(view.Placeholders) {
		t.Log(l)
	}
	return string(out), err
}

// afterRun is what the daemon does after the command: it returns the
// lines it would have the front end print.
func afterRun(t *testing.T, ws string, plan afterrun.Plan) []string {
	t.Helper()
	r, err := afterrun.Check(plan)
	if err != nil {
		t.Fatal(err)
	}
	return r.Lines()
}

func personEnv(home string) []string {
	return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=p",
		"GIT_AUTHOR_EMAIL=p@x", "GIT_COMMITTER_NAME=p", "GIT_COMMITTER_EMAIL=p@x", "XDG_CONFIG_HOME=" + home}
}

func sh(t *testing.T, dir, mark, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-ec", script)
	cmd.Dir, cmd.Env = dir, append(personEnv(t.TempDir()), "M="+mark)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// personGit is the person's own git status and commit, outside.
func personGit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"status"}, {"commit", "-q", "--allow-empty", "-m", "person"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, personEnv(t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("git %s in %s: %v\n%s", args[0], dir, err, out)
		}
	}
}
