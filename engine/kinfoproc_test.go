package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"syscall"
	"testing"
)

// kinfo is a kinfo_proc as a Mac's kernel lays it out, at offsets
// written out here from the C structs (not kinfoproc.go's constants, so a
// wrong constant fails); every byte the parser should not read is 0xA5,
// so a wrong offset reads noise.
type kinfo struct {
	pid, ppid int32
	state     byte
	sec       int64
	usec      int32
	comm      []byte // copied into p_comm as is: a NUL is the test's to add
}

func (k kinfo) bytes() []byte {
	b := bytes.Repeat([]byte{0xA5}, 648)
	le := binary.LittleEndian
	le.PutUint64(b[0:], uint64(k.sec))  // p_starttime.tv_sec
	le.PutUint32(b[8:], uint32(k.usec)) // p_starttime.tv_usec
	b[36] = k.state                     // p_stat
	le.PutUint32(b[40:], uint32(k.pid)) // p_pid
	copy(b[243:243+17], k.comm)         // p_comm
	// kp_eproc starts at 296; e_ppid follows e_paddr, e_sess, e_pcred
	// (104), e_ucred (76, then 4 to align) and e_vm (64).
	le.PutUint32(b[296+8+8+104+80+64:], uint32(k.ppid))
	return b
}

// sleeping is a live process: pid 4242, child of 4000, running zsh.
var sleeping = kinfo{pid: 4242, ppid: 4000, state: 3, sec: 1_700_000_000, usec: 123_456, comm: []byte("zsh\x00")}

// TestParseKinfoProc: the fields are read from their offsets, the start
// time becomes microseconds since the epoch, and a zombie is told apart.
func TestParseKinfoProc(t *testing.T) {
	with := func(f func(k *kinfo)) kinfo { k := sleeping; f(&k); return k }
	longest := strings.Repeat("n", kpCommLen-1)
	tests := []struct {
		name string
		k    kinfo
		want procStat
	}{
		{"sleeping shell", sleeping, procStat{ppid: 4000, start: 1_700_000_000_123_456, comm: "zsh"}},
		{"zombie", with(func(k *kinfo) { k.state = kpStateZombie }), procStat{ppid: 4000, start: 1_700_000_000_123_456, comm: "zsh", zombie: true}},
		{"child of launchd", with(func(k *kinfo) { k.ppid = 1 }), procStat{ppid: 1, start: 1_700_000_000_123_456, comm: "zsh"}},
		{"launchd itself", with(func(k *kinfo) { k.pid, k.ppid, k.comm = 4242, 0, []byte("launchd\x00") }), procStat{ppid: 0, start: 1_700_000_000_123_456, comm: "launchd"}},
		{"longest name", with(func(k *kinfo) { k.comm = []byte(longest + "\x00") }), procStat{ppid: 4000, start: 1_700_000_000_123_456, comm: longest}},
		{"no microseconds", with(func(k *kinfo) { k.usec = 0 }), procStat{ppid: 4000, start: 1_700_000_000_000_000, comm: "zsh"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseKinfoProc(tt.k.pid, tt.k.bytes())
			if err != nil || got != tt.want {
				t.Fatalf("parse = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestParseKinfoProcRefuses: what is not one whole kinfo_proc of the pid
// asked for is an error, never a process; no bytes at all is ESRCH.
func TestParseKinfoProcRefuses(t *testing.T) {
	with := func(f func(k *kinfo)) []byte { k := sleeping; f(&k); return k.bytes() }
	whole := sleeping.bytes()
	tests := []struct {
		name  string
		b     []byte
		esrch bool
	}{
		{"no process", nil, true},
		{"short", whole[:kinfoProcSize-1], false},
		{"extern_proc alone", whole[:296], false},
		{"two entries", append(append([]byte{}, whole...), whole...), false},
		{"another pid", with(func(k *kinfo) { k.pid = 4243 }), false},
		{"state 0", with(func(k *kinfo) { k.state = 0 }), false},
		{"state 6", with(func(k *kinfo) { k.state = 6 }), false},
		{"negative parent", with(func(k *kinfo) { k.ppid = -1 }), false},
		{"no start time", with(func(k *kinfo) { k.sec, k.usec = 0, 0 }), false},
		{"start before the epoch", with(func(k *kinfo) { k.sec = -5 }), false},
		{"a second of microseconds", with(func(k *kinfo) { k.usec = 1_000_000 }), false},
		{"negative microseconds", with(func(k *kinfo) { k.usec = -1 }), false},
		{"name without NUL", with(func(k *kinfo) { k.comm = bytes.Repeat([]byte("x"), kpCommLen) }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseKinfoProc(sleeping.pid, tt.b)
			if err == nil {
				t.Fatalf("parse = %+v, want an error", got)
			}
			if errors.Is(err, syscall.ESRCH) != tt.esrch {
				t.Fatalf("error %v: ESRCH %v, want %v", err, !tt.esrch, tt.esrch)
			}
		})
	}
}
