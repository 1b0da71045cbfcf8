package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"pathgrant/tools"
	"pathgrant/wire"
)

// killedPlants are plants the view cannot stop at wrap time (a repository
// made during the command, a commondir where none was), each written in
// a loop by a script that is then killed at a random moment: $N names
// the run, $M the marker the planted program writes.
var killedPlants = []struct{ name, script, person string }{
	{"new repository", `git init -q n$N; while :; do git -C n$N config core.fsmonitor "touch $M; false"; done`, "n%d"},
	{"commondir", `mkdir -p evil$N && cp -r .git/objects .git/refs evil$N/ && printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > evil$N/config; ` +
		`while :; do echo "$PWD/evil$N" > .git/commondir; done`, "."},
}

// TestKilledCommandsPlantNothing: a confined command plants in a loop
// and is killed at a random moment, before, during or after its front
// end's report (so during the daemon's check too), 51 times, a third
// each through the session door and the hook door (SIGKILL to the whole
// process group, front end included: it never reports) and the tool
// route (its timeout: the daemon kills the sandbox). The daemon checks
// anyway, and the session's next command waits for that. After each,
// the person's own git status and commit run nothing planted.
func TestKilledCommandsPlantNothing(t *testing.T) {
	requireFullConfinement(t)
	w := newDoorWalk(t)
	runs := 51
	if testing.Short() {
		runs = 9
	}
	doors := []struct {
		name string
		run  func(t *testing.T, script string, delay time.Duration)
	}{
		{"pathgrant exec --session", func(t *testing.T, script string, delay time.Duration) {
			w.killGroup(t, w.execCmd(w.bin, "--", "bash", script), delay)
		}},
		{"hook rewrite", func(t *testing.T, script string, delay time.Duration) {
			_, capability := w.hookCapability(t, "killed", "bash "+script)
			w.killGroup(t, w.capCmd(w.bin, capability, "bash "+script), delay)
			_, capability = w.hookCapability(t, "killed", "true") // the hook session's next command
			if r := runCmd(t, w.capCmd(w.bin, capability, "true")); r.code != 0 {
				t.Fatalf("the hook session's next command: %d %s", r.code, r.stderr)
			}
		}},
		{"tool route", func(t *testing.T, script string, delay time.Duration) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c := w.client()
			defer c.CloseIdle()
			args, _ := json.Marshal(map[string]any{"command": "bash " + script, "timeout_ms": delay.Milliseconds() + 1})
			c.Tool(ctx, tools.ExecuteShellCommand, wire.ToolRequest{Args: args})
		}},
	}
	for n := range runs {
		p, door := killedPlants[n%len(killedPlants)], doors[n%len(doors)]
		mark := filepath.Join(w.root, fmt.Sprintf("MARK-%d", n))
		script := fmt.Sprintf("./plant-%d.sh", n)
		text := strings.NewReplacer("$N", fmt.Sprint(n), "$M", mark).Replace(p.script)
		writeExecFile(t, filepath.Join(w.work, script), text+"\n")
		door.run(t, script, time.Duration(rand.IntN(400))*time.Millisecond)
		if r := runCmd(t, w.execCmd(w.bin, "--", "true")); r.code != 0 { // waits for the check
			t.Fatalf("run %d (%s, %s): the next command: %d %s", n, p.name, door.name, r.code, r.stderr)
		}
		person := filepath.Join(w.work, p.person)
		if p.person != "." {
			person = filepath.Join(w.work, fmt.Sprintf(p.person, n))
		}
		personRunsGit(t, person, w.home)
		if _, err := os.Stat(mark); err == nil {
			t.Fatalf("run %d (%s, %s): the person's git ran the plant", n, p.name, door.name)
		}
	}
}

// killGroup starts cmd in a process group of its own and kills the whole
// group with SIGKILL after delay.
func (w *doorWalk) killGroup(t *testing.T, cmd *exec.Cmd, delay time.Duration) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(delay)
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
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
