package frontend

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pathgrant/wire"
)

// TestSeatbeltCommand: a Seatbelt sandbox runs as sandbox-exec with the
// profile, then the program and its arguments, in the confined
// environment (the session's TMPDIR); without a profile nothing runs.
func TestSeatbeltCommand(t *testing.T) {
	p := wire.Prepared{Level: wire.LevelSeatbelt, Seatbelt: "(version 1)\n(deny default)\n", TmpDir: "/private/var/t/s1", Workspace: []string{"/w"}}
	c := Child{Prepared: p, Path: "/bin/bash", Argv: []string{"bash", "-c", "make"}, Env: []string{"PATH=/usr/bin:/bin", "TMPDIR=/elsewhere"}}
	path, argv, env, job, err := c.command()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"sandbox-exec", "-p", p.Seatbelt, "--", "/bin/bash", "-c", "make"}
	if path != wire.SandboxExec || !slices.Equal(argv, want) || job != nil {
		t.Errorf("command = %q %q (job %v), want %q %q and no job", path, argv, job, wire.SandboxExec, want)
	}
	if !slices.Contains(env, "TMPDIR=/private/var/t/s1") || slices.Contains(env, "TMPDIR=/elsewhere") {
		t.Errorf("environment %q: want the session's TMPDIR", env)
	}
	for _, bad := range []Child{
		{Prepared: wire.Prepared{Level: wire.LevelSeatbelt}, Path: "/bin/bash", Argv: []string{"bash"}},
		{Prepared: p, Path: "/bin/bash"},
		{Prepared: p, Argv: []string{"bash"}},
	} {
		if _, _, _, _, err := bad.command(); err == nil || !strings.Contains(err.Error(), "Seatbelt") {
			t.Errorf("command() of %+v: %v, want a refusal", bad, err)
		}
	}
}

// TestProcAttr: a Seatbelt sandbox starts a session of its own (no
// controlling terminal: nothing pushed into the person's); others a
// group of their own when asked, as before.
func TestProcAttr(t *testing.T) {
	tests := []struct {
		name           string
		c              Child
		setsid, setpgi bool
	}{
		{"seatbelt", Child{Prepared: wire.Prepared{Level: wire.LevelSeatbelt, Seatbelt: "x"}, OwnGroup: true}, true, false},
		{"seatbelt, front end", Child{Prepared: wire.Prepared{Level: wire.LevelSeatbelt, Seatbelt: "x"}}, true, false},
		{"bubblewrap, own group", Child{Prepared: wire.Prepared{Level: wire.LevelFull}, OwnGroup: true}, false, true},
		{"bubblewrap", Child{Prepared: wire.Prepared{Level: wire.LevelFull}}, false, false},
		{"unconfined", Child{Prepared: wire.Prepared{Level: wire.LevelSeatbelt, Unconfined: "off"}, OwnGroup: true}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.c.procAttr()
			if a.Setsid != tt.setsid || a.Setpgid != tt.setpgi {
				t.Errorf("procAttr = %+v, want Setsid %v Setpgid %v", a, tt.setsid, tt.setpgi)
			}
		})
	}
}

// TestForwardReachesTheSession: a signal the front end forwards to a
// Seatbelt sandbox reaches every process of its session, not only the
// first: here a shell's background child.
func TestForwardReachesTheSession(t *testing.T) {
	c := Child{Prepared: wire.Prepared{Level: wire.LevelSeatbelt, Seatbelt: "x"}}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	proc, err := os.StartProcess("/bin/sh", []string{"sh", "-c", "sleep 30 & echo $!; wait"},
		&os.ProcAttr{Files: []*os.File{nil, w, os.Stderr}, Sys: c.procAttr()})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	child, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		proc.Kill()
		t.Fatalf("read the child's pid: %q, %v, %v", line, err, perr)
	}
	c.forward(proc, syscall.SIGTERM)
	if _, err := proc.Wait(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(3 * time.Second); alive(child); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the shell's child %d outlived the forwarded signal", child)
		}
	}
}

// alive reports whether pid runs: it exists and, where /proc says, is no
// zombie waiting for a parent that may never reap it.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if i := strings.LastIndexByte(string(stat), ')'); err == nil && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}
