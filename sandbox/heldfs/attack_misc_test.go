//go:build linux

package heldfs_test

// Attacks that held: exec of an executable served file, and
// ld.so running it; an outsider's open of a sandboxed process's served
// descriptor through /proc/PID/fd, and a listing through /proc/PID/cwd.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestAttackExecServed(t *testing.T) {
	w := newWorld(t, allow)
	write(t, filepath.Join(w.root, "prog.sh"), "#!/bin/sh\necho RAN\n")
	if err := os.Chmod(filepath.Join(w.root, "prog.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	cp, _ := os.ReadFile("/bin/true")
	if err := os.WriteFile(filepath.Join(w.root, "true"), cp, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{
		w.root + "/prog.sh",
		"/lib64/ld-linux-x86-64.so.2 " + w.root + "/true && echo RAN",
		"python3 -c 'import mmap,os; f=os.open(\"" + w.root + "/true\", os.O_RDONLY); mmap.mmap(f, 4096, prot=mmap.PROT_READ|mmap.PROT_EXEC); print(\"RAN\")'",
	} {
		out, _ := w.sandbox(context.Background(), script)
		t.Logf("%s: %s", script, out)
		if strings.Contains(out, "RAN") {
			t.Errorf("a served file ran: %s", script)
		}
	}
}

func TestAttackProcFdFromOutside(t *testing.T) {
	w := newWorld(t, allow)
	write(t, filepath.Join(w.root, "report.csv"), "a,b\n")
	write(t, filepath.Join(w.root, "sub", "x"), "x")
	pid := runningSandbox(t, w, "cd "+w.root+"/sub; exec 7<"+w.root+"/report.csv; exec sleep 30")
	p := sleeping(t, pid) // in the served cwd, holding the served descriptor
	before := len(w.ask.got())
	if data, err := os.ReadFile("/proc/" + p + "/fd/7"); err == nil {
		t.Errorf("an outsider reopened the sandbox's served descriptor: %q", data)
	} else {
		t.Logf("reopen /proc/%s/fd/7: %v", p, err)
	}
	if ents, err := os.ReadDir("/proc/" + p + "/cwd"); err == nil {
		t.Errorf("an outsider listed the sandbox's served cwd: %v", ents)
	} else {
		t.Logf("list /proc/%s/cwd: %v", p, err)
	}
	if out, err := exec.Command("stat", "-c", "%n %s", "/proc/"+p+"/cwd/x").CombinedOutput(); err == nil {
		t.Logf("metadata through /proc/%s/cwd (cached dentry, no request): %s", p, out)
	}
	if got := w.ask.got()[before:]; len(got) != 0 {
		t.Errorf("outsider raised requests: %q", got)
	}
}
