package frontend

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pathgrant/wire"
)

// TestSandboxDiesWithTheFrontEnd: the sandbox's first process is killed
// when the front end is, whichever way it starts (its own group or not):
// a front end killed before bubblewrap asked for it must not leave the
// command running past the daemon's check. The front end here is this
// test binary run again, which starts a sleep as it starts bubblewrap.
func TestSandboxDiesWithTheFrontEnd(t *testing.T) {
	if os.Getenv("PATHGRANT_TEST_FRONT_END") != "" {
		own := os.Getenv("PATHGRANT_TEST_FRONT_END") == "own"
		c := Child{Prepared: wire.Prepared{Level: wire.LevelFull}, OwnGroup: own}
		p, err := os.StartProcess("/bin/sleep", []string{"sleep", "60"}, &os.ProcAttr{Sys: c.procAttr()})
		if err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString(strconv.Itoa(p.Pid) + "\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	for _, group := range []string{"own", "shared"} {
		t.Run(group, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestSandboxDiesWithTheFrontEnd$")
			cmd.Env = append(os.Environ(), "PATHGRANT_TEST_FRONT_END="+group)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			pid, perr := strconv.Atoi(strings.TrimSpace(line))
			if err != nil || perr != nil {
				cmd.Process.Kill()
				t.Fatalf("the front end's child: %q %v %v", line, err, perr)
			}
			cmd.Process.Kill()
			cmd.Wait()
			deadline := time.Now().Add(10 * time.Second)
			for syscall.Kill(pid, 0) == nil {
				if time.Now().After(deadline) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Fatal("the sandbox's first process outlived its killed front end")
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
