package engine

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pathgrant/guard"
)

// detachedInGroup starts what a confined command at the Landlock-only
// level leaves behind: a shell in a process group of its own (the front
// end's), which double-forks a sleeper and waits. The sleeper's parent
// is then init or a subreaper, never the shell, and it is still in the
// shell's group. It returns the group, the sleeper, and what ends them
// all and reaps the shell (also done at cleanup). n tells the sleepers of
// one test apart.
func detachedInGroup(t *testing.T, n int) (group int32, sleeper Proc, end func()) {
	t.Helper()
	marker := strconv.Itoa(5000+os.Getpid()%1000) + "." + strconv.Itoa(n)
	sh := exec.Command("sh", "-c", "(sleep "+marker+" &) ; sleep 600")
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	group = int32(sh.Process.Pid)
	end = func() { syscall.Kill(-int(group), syscall.SIGKILL); sh.Wait() }
	t.Cleanup(end)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		dirs, _ := os.ReadDir("/proc")
		for _, d := range dirs {
			pid, err := strconv.Atoi(d.Name())
			if err != nil {
				continue
			}
			cmdline, _ := os.ReadFile("/proc/" + d.Name() + "/cmdline")
			st, err := readProcStat(int32(pid))
			if err == nil && string(cmdline) == "sleep\x00"+marker+"\x00" && st.group == group && st.ppid != group {
				return group, Proc{PID: int32(pid), Start: st.start}, end
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the detached sleeper did not show up")
	return 0, Proc{}, end
}

// TestLineageDetachedGroup: a process a confined command detached (a
// double fork: its lineage no longer holds the agent, nor the front end)
// counts as an agent of the session whose confined command ran in its
// process group, on every route that asks (person-only routes and the
// registration bounds alike), with that session's roots; the person's
// own processes, in other groups, do not.
func TestLineageDetachedGroup(t *testing.T) {
	group, sleeper, _ := detachedInGroup(t, 1)
	_, otherProc, _ := detachedInGroup(t, 2) // the person's: detached too, so not below the test process
	roots := guard.SessionPolicy{Workspace: []string{"/w"}}
	tests := []struct {
		name    string
		record  bool
		caller  Proc
		session string // "" for the person
	}{
		{"detached, its group not recorded", false, sleeper, ""},
		{"detached, its group recorded", true, sleeper, "hook-only"},
		{"detached in another group", true, otherProc, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Engine{agents: newAgentSet(), self: selfProc()}
			if tt.record {
				s.agents.addGroup(group, "hook-only", roots)
			}
			lin := PeerLineage(tt.caller.PID, tt.caller.Start)
			whole, ok := lin.Whole()
			for _, e := range whole {
				if !ok || e.PID == group || e.PID == s.self.PID {
					t.Fatalf("lineage %+v (readable %v): want neither the group's shell nor the test in it", whole, ok)
				}
			}
			why, session := s.JudgeCaller(lin)
			if session != tt.session || (why == "") != (tt.session == "") {
				t.Fatalf("JudgeCaller = %q (%s), want session %q", why, session, tt.session)
			}
			if tt.session != "" && !strings.Contains(why, "process group") {
				t.Errorf("why %q does not say the process group", why)
			}
			got, ok := s.agents.rootsOf(mustWhole(t, PeerLineage(tt.caller.PID, tt.caller.Start)))
			if ok != (tt.session != "") || ok && !sameRoots(got[0], roots) {
				t.Errorf("rootsOf = %+v, %v; want the session's roots when it is an agent", got, ok)
			}
		})
	}
}

func mustWhole(t *testing.T, l *Lineage) []LineageEntry {
	t.Helper()
	lin, ok := l.Whole()
	if !ok {
		t.Fatal("lineage not readable")
	}
	return lin
}

// TestLineageGroupForgotten: a recorded group is forgotten once no
// process is in it, and a group whose number now names a process other
// than the leader recorded is not taken for it.
func TestLineageGroupForgotten(t *testing.T) {
	group, _, end := detachedInGroup(t, 3)
	_, leader, _, err := ProcInfo(group)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		leader Proc
		same   bool
	}{
		{"the leader recorded", leader, true},
		{"another process took the number", Proc{PID: group, Start: leader.Start + 1}, false},
		{"the leader had exited when recorded", Proc{PID: group}, false},
		{"no process has the number", Proc{PID: 1 << 30, Start: 7}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameGroup(tt.leader.PID, tt.leader); got != tt.same {
				t.Errorf("sameGroup = %v, want %v", got, tt.same)
			}
		})
	}
	a := newAgentSet()
	a.addGroup(group, "s", guard.SessionPolicy{})
	a.prune(func(Proc) bool { return true })
	if len(a.groups.groups) != 1 {
		t.Fatalf("a group with processes in it was forgotten")
	}
	end()
	deadline := time.Now().Add(5 * time.Second)
	for groupExists(group) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	a.prune(func(Proc) bool { return true })
	if len(a.groups.groups) != 0 {
		t.Errorf("an empty group is still recorded")
	}
}
