//go:build linux && (amd64 || arm64)

package supervise_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"pathgrant/sandbox/supervise"
)

// openLoop opens and closes a workspace file n times in one process, by
// absolute and by relative path: the cost of an open the supervisor does
// not take over, which every plain read pays.
const openLoop = `import os, sys, time
n = int(sys.argv[1])
t = time.perf_counter_ns()
for i in range(n):
    os.close(os.open(sys.argv[2], os.O_RDONLY))
    os.close(os.open("mine.txt", os.O_RDONLY))
print((time.perf_counter_ns() - t) / (2 * n))`

// BenchmarkOpen is the cost of one read-only open outside the approvable
// roots under the supervisor, against the same open under Landlock alone,
// measured inside the command (so start-up is not counted), alternating
// in one run:
//
//	go test ./sandbox/supervise -run '^$' -bench Open -benchtime 5x
func BenchmarkOpen(b *testing.B) {
	w := newWorld(b)
	const n = 20000
	per := func(noHold bool) float64 {
		argv := []string{"python3", "-c", openLoop, strconv.Itoa(n), filepath.Join(w.work, "mine.txt")}
		var out string
		if noHold {
			job, _ := json.Marshal(helperJob{Rules: w.rules, Argv: argv, Dir: w.work, NoHold: true})
			cmd := exec.Command(os.Args[0])
			cmd.Env = []string{helperEnv + "=" + string(job), "PATH=/usr/bin:/bin"}
			o, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("%v: %s", err, o)
			}
			out = string(o)
		} else {
			cmd, listener := start(b, w, argv)
			sup := &supervise.Supervisor{Roots: []string{w.downloads}, Ask: &asker{decide: denyAll}}
			stop := serve(b, sup, listener)
			if err := cmd.Wait(); err != nil {
				b.Fatalf("%v: %s", err, cmd.Stderr)
			}
			stop()
			out = cmd.Stdout.(*bytes.Buffer).String()
		}
		ns, err := strconv.ParseFloat(string(bytes.TrimSpace([]byte(out))), 64)
		if err != nil {
			b.Fatalf("output %q: %v", out, err)
		}
		return ns
	}
	var held, plain []float64
	for b.Loop() {
		held = append(held, per(false))
		plain = append(plain, per(true))
	}
	mh, mp := medianF(held), medianF(plain)
	b.ReportMetric(mh/1000, "held-us/open")
	b.ReportMetric(mp/1000, "plain-us/open")
	b.ReportMetric((mh-mp)/1000, "added-us/open")
}

func medianF(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}
