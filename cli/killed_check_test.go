package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// killedPlants are plants the view cannot stop at wrap time (a repository
// made during the command, a commondir where none was), each written in
// a loop by a command that is then killed at a random moment: $N names
// the run, $M the marker the planted program writes.
var killedPlants = []struct{ name, script, person string }{
	{"new repository", `git init -q n$N; while :; do git -C n$N config core.fsmonitor "touch $M; false"; done`, "n%d"},
	{"commondir", `mkdir -p evil$N && cp -r .git/objects .git/refs evil$N/ && printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > evil$N/config; ` +
		`while :; do echo "$PWD/evil$N" > .git/commondir; done`, "."},
}

// TestKilledCommandsPlantNothing: a confined command plants in a loop
// and its whole process group gets SIGKILL at a random moment, before,
// during or after its front end's report (so during the daemon's check
// too), 50 times. The front end never reports then; the daemon sees it
// gone and checks, and the session's next command waits for that. After
// each, the person's own git status and commit run nothing planted.
func TestKilledCommandsPlantNothing(t *testing.T) {
	requireFullConfinement(t)
	w := newDoorWalk(t)
	runs := 50
	if testing.Short() {
		runs = 8
	}
	for n := range runs {
		p := killedPlants[n%len(killedPlants)]
		mark := filepath.Join(w.root, fmt.Sprintf("MARK-%d", n))
		cmd := w.execCmd(w.bin, "--", "bash", "-c", p.script)
		cmd.Env = append(cmd.Env, fmt.Sprintf("N=%d", n), "M="+mark)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.IntN(400)) * time.Millisecond)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		if r := runCmd(t, w.execCmd(w.bin, "--", "true")); r.code != 0 { // waits for the check
			t.Fatalf("run %d (%s): the next command: %d %s", n, p.name, r.code, r.stderr)
		}
		person := filepath.Join(w.work, p.person)
		if p.person != "." {
			person = filepath.Join(w.work, fmt.Sprintf(p.person, n))
		}
		personRunsGit(t, person, w.home)
		if _, err := os.Stat(mark); err == nil {
			t.Fatalf("run %d (%s): the person's git ran the plant", n, p.name)
		}
	}
}

// personRunsGit is the person's own git status and commit in dir, outside
// any confinement (it may find no repository there: the plant was moved
// aside or never made).
func personRunsGit(t *testing.T, dir, home string) {
	t.Helper()
	for _, args := range [][]string{{"status"}, {"commit", "-q", "--allow-empty", "-m", "person"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1"}
		cmd.Run()
	}
}
