package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAgentsTiming measures, for each real client, the time from the
// model's tool call to the tool result for an allowed read (a workspace
// file) in three arms: pathgrant's hook as installed, the same installed
// configuration with the no-op hook at the hook's path, and no hook at
// all. Each iteration runs the three in turn, so that they see the same
// machine load. With − no-op is what pathgrant adds per call; no-op −
// none is the client's own cost of running any hook, which a with − none
// baseline would charge to pathgrant. PATHGRANT_TIMING=1 runs it;
// PATHGRANT_TIMING_RUNS sets the iterations (default 7).
func TestAgentsTiming(t *testing.T) {
	if os.Getenv("PATHGRANT_TIMING") != "1" {
		t.Skip("PATHGRANT_TIMING=1 runs the client-level timing")
	}
	runs := 7
	if n, err := fmt.Sscan(os.Getenv("PATHGRANT_TIMING_RUNS"), &runs); n != 1 || err != nil || runs < 1 {
		runs = 7
	}
	var rows []timingRow
	for _, ac := range agentClients {
		t.Run(ac.name, func(t *testing.T) {
			row := timeClient(t, ac.mk(t), runs)
			t.Logf("%s: tool call → result for an allowed read, medians of %d runs, in ms:\n%s", ac.name, runs, timingTable([]timingRow{row}))
			rows = append(rows, row)
		})
	}
	t.Logf("tool call → result for an allowed read, medians of %d runs per client, in ms:\n%s", runs, timingTable(rows))
}

// timingArms are the arms of one iteration, in the order they run.
var timingArms = []hookMode{hookPathgrant, hookNoop, hookNone}

// timingRow is one client's results: each arm's median and the medians
// of the paired differences.
type timingRow struct {
	client          string
	arm             map[hookMode]time.Duration
	adds, machinery time.Duration // with − no-op, no-op − none
}

// timeClient sets c up in a fresh environment, checks that its no-op
// arm runs the hook's path, and times runs iterations of the three arms.
func timeClient(t *testing.T, c agentClient, runs int) timingRow {
	e := newAgentsEnv(t)
	seedSecrets(t, e) // the folders Gemini is told to include must exist
	c.setup(t, e)
	swap := newHookSwap(t, e)
	swap.probe(t, e, c)
	lat := map[hookMode][]time.Duration{}
	for range runs {
		for _, mode := range timingArms {
			lat[mode] = append(lat[mode], swap.timedRead(t, e, c, mode))
		}
	}
	row := timingRow{client: c.name(), arm: map[hookMode]time.Duration{},
		adds:      median(pairedDiff(lat[hookPathgrant], lat[hookNoop])),
		machinery: median(pairedDiff(lat[hookNoop], lat[hookNone]))}
	for _, mode := range timingArms {
		row.arm[mode] = median(lat[mode])
	}
	return row
}

// timingColumns are the summary table's columns after the client's.
var timingColumns = []struct {
	head string
	of   func(timingRow) time.Duration
}{
	{"none", func(r timingRow) time.Duration { return r.arm[hookNone] }},
	{"no-op hook", func(r timingRow) time.Duration { return r.arm[hookNoop] }},
	{"pathgrant", func(r timingRow) time.Duration { return r.arm[hookPathgrant] }},
	{"pathgrant adds (with − no-op)", func(r timingRow) time.Duration { return r.adds }},
	{"hook machinery (no-op − none)", func(r timingRow) time.Duration { return r.machinery }},
}

// timingTable renders rows as a Markdown table in milliseconds, for CI's
// output and docs/testing.md.
func timingTable(rows []timingRow) string {
	var sb strings.Builder
	sb.WriteString("| client |")
	for _, col := range timingColumns {
		sb.WriteString(" " + col.head + " |")
	}
	sb.WriteString("\n| --- |" + strings.Repeat(" --- |", len(timingColumns)) + "\n")
	for _, r := range rows {
		sb.WriteString("| " + r.client + " |")
		for _, col := range timingColumns {
			fmt.Fprintf(&sb, " %.1f |", float64(col.of(r))/float64(time.Millisecond))
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// hookSwap puts either the real hook or the no-op hook at e.hook, the
// path install-hooks wrote into the client's configuration, so that the
// no-op arm runs that configuration unchanged.
type hookSwap struct {
	dir, hook, real, noop string
}

// newHookSwap keeps a hard link to the real hook beside it and builds
// the no-op hook there.
func newHookSwap(t *testing.T, e *agentsEnv) *hookSwap {
	t.Helper()
	dir := filepath.Dir(e.hook)
	s := &hookSwap{dir: dir, hook: e.hook, real: e.hook + ".pathgrant", noop: filepath.Join(dir, "nohook")}
	if err := os.Link(e.hook, s.real); err != nil {
		t.Fatal(err)
	}
	agentsBuild(t, s.noop, "pathgrant/cmd/pathgrant-hook/testdata/nohook", false)
	return s
}

// use puts bin at the hook's path: a hard link renamed over it, so that
// the path always holds a whole binary.
func (s *hookSwap) use(t *testing.T, bin string) {
	t.Helper()
	tmp := s.hook + ".next"
	_ = os.Remove(tmp)
	if err := os.Link(bin, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, s.hook); err != nil {
		t.Fatal(err)
	}
}

// timedRead is one timed read in mode, with the no-op hook at the hook's
// path for the no-op arm and the real one back after it.
func (s *hookSwap) timedRead(t *testing.T, e *agentsEnv, c agentClient, mode hookMode) time.Duration {
	t.Helper()
	if mode == hookNoop {
		s.use(t, s.noop)
		defer s.use(t, s.real)
	}
	return timedRead(t, e, c, mode)
}

// probe runs one no-op read with a script at the hook's path that notes
// its arguments and runs the no-op hook: a client that ran anything but
// the binary at that path would have its no-op arm time no hook at all.
func (s *hookSwap) probe(t *testing.T, e *agentsEnv, c agentClient) {
	t.Helper()
	script, calls := filepath.Join(s.dir, "probe"), filepath.Join(s.dir, "probe.log")
	body := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %s\nexec %s \"$@\"\n", shellQuote(calls), shellQuote(s.noop))
	agentsWrite(t, script, []byte(body))
	if err := os.Chmod(script, 0o700); err != nil {
		t.Fatal(err)
	}
	s.use(t, script)
	defer s.use(t, s.real)
	timedRead(t, e, c, hookNoop)
	data, _ := os.ReadFile(calls)
	if len(data) == 0 {
		t.Fatalf("%s did not run the hook at %s in the no-op arm", c.name(), s.hook)
	}
	t.Logf("%s ran the hook at its path as: %s", c.name(), strings.ReplaceAll(strings.TrimSpace(string(data)), "\n", "; "))
}

// hookModeNames name the arms in failures.
var hookModeNames = map[hookMode]string{hookNone: "without hooks", hookNoop: "with the no-op hook", hookPathgrant: "with pathgrant's hook"}

// timedRead runs one allowed read of a workspace file in mode and
// returns the time from the model's tool call to the result reaching the
// model; the test fails unless the read returned the file in every arm.
func timedRead(t *testing.T, e *agentsEnv, c agentClient, mode hookMode) time.Duration {
	t.Helper()
	run := c.start(t, e, agentCall{op: "read", path: filepath.Join(e.work, "README.md")}, mode)
	out := run.wait(t)
	if content, ok := c.result(t, e); !ok || !strings.Contains(content, "a project") {
		t.Fatalf("the allowed read %s returned %q (sent %v); %s said:\n%s", hookModeNames[mode], content, ok, c.name(), out)
	}
	lat := c.latencies()
	if len(lat) != 1 {
		t.Fatalf("%d tool latencies %s, want 1", len(lat), hookModeNames[mode])
	}
	return lat[0]
}

// pairedDiff is a[i] − b[i] for each run: the arms of one iteration ran
// under the same load, so their difference is less noisy than the medians'.
func pairedDiff(a, b []time.Duration) []time.Duration {
	out := make([]time.Duration, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
