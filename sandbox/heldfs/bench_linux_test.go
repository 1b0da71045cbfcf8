//go:build linux

package heldfs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pathgrant/wire"
)

// BenchmarkHeldFirstOpen is the latency from a confined program's open of
// a file under a root to the ask reaching the daemon (here the test's
// asker, which allows at once), paired in each iteration with the open of
// a file outside the file system in the same sandbox (the baseline).
//
//	go test ./sandbox/heldfs -run '^$' -bench HeldFirstOpen -benchtime 20x
func BenchmarkHeldFirstOpen(b *testing.B) {
	var mu sync.Mutex
	var asked time.Time
	w := newWorld(b, func(_ context.Context, path string) wire.HoldAnswer {
		mu.Lock()
		asked = time.Now()
		mu.Unlock()
		return wire.HoldAnswer{Allowed: true, Path: path}
	})
	direct := filepath.Join(b.TempDir(), "direct.txt")
	write(b, direct, "d\n")
	script := `import time, sys
t0 = time.time_ns(); open(sys.argv[1]).close(); t1 = time.time_ns()
open(sys.argv[2]).close(); t2 = time.time_ns()
print(t0, t1 - t0, t2 - t1)`
	var toAsk, held, plain []float64
	n := 0
	for b.Loop() {
		n++
		file := filepath.Join(w.root, fmt.Sprintf("f%d.txt", n))
		write(b, file, "x\n")
		out, err := w.sandbox(context.Background(), fmt.Sprintf("python3 -c '%s' %s %s", script, file, direct))
		f := strings.Fields(out)
		if err != nil || len(f) != 3 {
			b.Fatalf("%v: %s", err, out)
		}
		t0, _ := strconv.ParseInt(f[0], 10, 64)
		h, _ := strconv.ParseFloat(f[1], 64)
		p, _ := strconv.ParseFloat(f[2], 64)
		mu.Lock()
		toAsk = append(toAsk, float64(asked.UnixNano()-t0)/1e3)
		mu.Unlock()
		held, plain = append(held, h/1e3), append(plain, p/1e3)
	}
	b.ReportMetric(medianOf(toAsk), "to-ask-µs")
	b.ReportMetric(medianOf(held), "held-open-µs")
	b.ReportMetric(medianOf(plain), "direct-open-µs")
}

// BenchmarkHeldRead100MB reads an approved 100 MB file through the file
// system, paired in each iteration with a read of the same file bound
// into the sandbox directly.
//
//	go test ./sandbox/heldfs -run '^$' -bench HeldRead100MB -benchtime 5x
func BenchmarkHeldRead100MB(b *testing.B) {
	w := newWorld(b, allow)
	big := filepath.Join(w.root, "big.bin")
	f, err := os.Create(big)
	if err != nil {
		b.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil {
		b.Fatal(err)
	}
	f.Close()
	direct := filepath.Join(b.TempDir(), "big.bin")
	if err := os.Link(big, direct); err != nil {
		b.Fatal(err)
	}
	timed := func(path string) float64 {
		out, err := w.sandbox(context.Background(), `s=$(date +%s%N); cat `+path+` > /dev/null; e=$(date +%s%N); echo $((e - s))`)
		if err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		ns, err := strconv.ParseFloat(strings.TrimSpace(out), 64)
		if err != nil {
			b.Fatalf("%q: %v", out, err)
		}
		return 100 / (ns / 1e9) // MB/s
	}
	var through, plain []float64
	for b.Loop() {
		through = append(through, timed(big))
		plain = append(plain, timed(direct))
	}
	b.ReportMetric(medianOf(through), "fuse-MB/s")
	b.ReportMetric(medianOf(plain), "direct-MB/s")
}

func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
