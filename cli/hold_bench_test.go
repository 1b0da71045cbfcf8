package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"pathgrant/sandbox"
)

// BenchmarkHeldOpens is what holding opens costs a confined command on the
// hook's path (pathgrant-confine with a capability), in each mode
// (pathgrant's file system serving the approvable roots, and the seccomp
// supervisor, the fallback): each workload runs held and not held
// (hold_opens off), alternating, in the same run, and the medians are
// compared. With the supervisor every open of a plain read goes to it and
// back, so the file-heavy workloads are where it shows: a Python loop
// reading 10,000 small workspace files, cat over them, and go build of a
// small module with warm caches; with the file system nothing outside the
// approvable roots is held.
//
//	go test ./cli -run '^$' -bench HeldOpens -benchtime 20x
func BenchmarkHeldOpens(b *testing.B) {
	if c := sandbox.Probe(); c.Level != sandbox.LevelFull {
		b.Skipf("confinement here is %q, not %q", c.Level, sandbox.LevelFull)
	}
	bin := buildBinary(b)
	for _, mode := range holdModes() {
		b.Run(mode.name, func(b *testing.B) { benchHeldOpens(b, bin, newExecEnvIn(b, "", sandbox.Probe(), mode.set(b))) })
	}
}

func benchHeldOpens(b *testing.B, bin string, e *execEnv) {
	for i := range 10000 {
		writeExecFile(b, fmt.Sprintf("%s/many/%02d/f%05d.txt", e.work, i/100, i), "small file\n")
	}
	writeExecFile(b, e.work+"/cat-many.sh", "find many -type f -print0 | xargs -0 cat | wc -c\n")
	writeExecFile(b, e.work+"/gomod/go.mod", "module m\ngo 1.21\n")
	writeExecFile(b, e.work+"/gomod/main.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"built\") }\n")
	env := append(goEnv(e), "HOME="+e.home, "TMPDIR="+e.tmp)
	workloads := []struct{ name, command string }{
		{"true", "true"},
		{"python-read-10000", `/usr/bin/python3 -c 'import os
n = 0
for d, _, fs in os.walk("many"):
    for f in fs:
        with open(os.path.join(d, f)) as h: n += len(h.read())
print(n)'`},
		{"cat-10000", "bash ./cat-many.sh"}, // a script: the guard cannot prove xargs

		{"go-build", "cd gomod && go build -o m . && ./m"},
	}
	n := 0
	run := func(b *testing.B, command string, hold bool) time.Duration {
		e.noHold.Store(!hold)
		n++
		_, capability := e.hookCapability(b, fmt.Sprintf("bench-hold-%d", n), command)
		cmd := e.capCmd(bin, capability, command)
		cmd.Env = append(cmd.Env, env...)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		var ee *exec.ExitError
		if err != nil || errors.As(err, &ee) {
			b.Fatalf("%s (hold %v): %v\n%s", command, hold, err, out)
		}
		if strings.Contains(string(out), "pathgrant:") {
			b.Fatalf("%s (hold %v) said: %s", command, hold, out)
		}
		return d
	}
	for _, w := range workloads {
		b.Run(w.name, func(b *testing.B) {
			run(b, w.command, true) // warm the caches both runs share
			var with, without []time.Duration
			for b.Loop() {
				with = append(with, run(b, w.command, true))
				without = append(without, run(b, w.command, false))
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			mw, mo := median(with), median(without)
			b.ReportMetric(ms(mw), "held-ms")
			b.ReportMetric(ms(mo), "unheld-ms")
			b.ReportMetric(ms(mw-mo), "added-ms")
			b.ReportMetric(float64(mw)/float64(mo), "ratio")
		})
	}
	e.noHold.Store(false)
	_ = os.RemoveAll(e.work + "/many")
}
