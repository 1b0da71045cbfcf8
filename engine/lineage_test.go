package engine

import (
	"os"
	"testing"
)

// TestLineage reads this process's own lineage from /proc: it starts with
// this process, then its parent, and a second read names the same
// processes (pid and start time).
func TestLineage(t *testing.T) {
	lin := newLineage(int32(os.Getpid())).all()
	if len(lin) < 2 || lin[0].PID != int32(os.Getpid()) || lin[1].PID != int32(os.Getppid()) {
		t.Fatalf("lineage %+v", lin)
	}
	again := newLineage(int32(os.Getpid())).all()
	if again[0] != lin[0] || lin[0].Start == 0 {
		t.Fatalf("lineage not stable: %+v vs %+v", lin[0], again[0])
	}
	if got := newLineage(1 << 30).all(); len(got) != 0 {
		t.Fatalf("lineage of a missing pid: %+v", got)
	}
}

func TestAgentChain(t *testing.T) {
	e := func(pid int32, comm string) LineageEntry {
		return LineageEntry{Proc: Proc{PID: pid, Start: 1}, Comm: comm}
	}
	tests := []struct {
		name string
		lin  []LineageEntry
		want []int32
	}{
		{"hook under claude", []LineageEntry{e(3, "pathgrant-hook"), e(2, "claude"), e(1, "bash")}, []int32{3, 2}},
		{"hook through sh", []LineageEntry{e(4, "pathgrant-hook"), e(3, "sh"), e(2, "node"), e(1, "bash")}, []int32{4, 3, 2}},
		{"peer alone", []LineageEntry{e(4, "curl")}, []int32{4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int32
			for _, p := range agentChain(tt.lin) {
				got = append(got, p.PID)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("chain %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("chain %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// TestLazyLineage: the agent chain reads only as far as the first
// non-shell ancestor; the whole lineage reads on to init.
func TestLazyLineage(t *testing.T) {
	l := newLineage(int32(os.Getpid()))
	chain := l.chain()
	if len(chain) < 2 || chain[0].PID != int32(os.Getpid()) || len(l.got) != len(chain) {
		t.Fatalf("chain %+v read %d entries", chain, len(l.got))
	}
	if all := l.all(); len(all) < len(chain) || all[len(all)-1].PID <= 1 {
		t.Fatalf("all %+v", all)
	}
}

// newLineage starts a lazy walk up from pid.
func newLineage(pid int32) *Lineage { return &Lineage{next: pid} }
