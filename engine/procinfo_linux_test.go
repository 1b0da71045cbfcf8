package engine

import (
	"os"
	"testing"
)

// TestParseProcStat: the fields are counted from the last ')', so a
// command name holding ") " or spaces cannot shift them (the process
// group, which groups.go trusts, among them).
func TestParseProcStat(t *testing.T) {
	tail := " 4000 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100"
	tests := []struct {
		name string
		line string
		want procStat
		bad  bool
	}{
		{"sleeping", "4242 (zsh) S" + tail, procStat{ppid: 4000, start: 987654, comm: "zsh", group: 4242}, false},
		{"zombie", "4242 (zsh) Z" + tail, procStat{ppid: 4000, start: 987654, comm: "zsh", zombie: true, group: 4242}, false},
		{"dead", "4242 (zsh) X" + tail, procStat{ppid: 4000, start: 987654, comm: "zsh", zombie: true, group: 4242}, false},
		{"name with ) and spaces", "4242 (a) S 1 (b) S" + tail, procStat{ppid: 4000, start: 987654, comm: "a) S 1 (b", group: 4242}, false},
		{"no parentheses", "4242 zsh S" + tail, procStat{}, true},
		{"too few fields", "4242 (zsh) S 4000 4242", procStat{}, true},
		{"non-numeric ppid", "4242 (zsh) S x" + tail[5:], procStat{}, true},
		{"non-numeric group", "4242 (zsh) S 4000 x" + tail[10:], procStat{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcStat([]byte(tt.line))
			if (err != nil) != tt.bad || got != tt.want {
				t.Fatalf("parse = %+v, %v; want %+v (error %v)", got, err, tt.want, tt.bad)
			}
		})
	}
}

// TestProcInfoSelf reads this process from /proc: its parent is
// os.Getppid, its start time is set and stable.
func TestProcInfoSelf(t *testing.T) {
	pid := int32(os.Getpid())
	ppid, p, comm, err := ProcInfo(pid)
	if err != nil || ppid != int32(os.Getppid()) || p.Start == 0 || comm == "" {
		t.Fatalf("ProcInfo = %d %+v %q %v", ppid, p, comm, err)
	}
	if _, again, _, err := ProcInfo(pid); err != nil || again != p {
		t.Fatalf("second read %+v %v, want %+v", again, err, p)
	}
}
