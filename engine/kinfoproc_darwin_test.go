package engine

import (
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestKinfoProcLayout holds kinfoproc.go's offsets to x/sys's KinfoProc,
// which is generated from the system headers.
func TestKinfoProcLayout(t *testing.T) {
	var k unix.KinfoProc
	tests := []struct {
		name      string
		got, want uintptr
	}{
		{"size", unsafe.Sizeof(k), kinfoProcSize},
		{"p_starttime.tv_sec", unsafe.Offsetof(k.Proc) + unsafe.Offsetof(k.Proc.P_starttime) + unsafe.Offsetof(k.Proc.P_starttime.Sec), kpStartSecOff},
		{"p_starttime.tv_usec", unsafe.Offsetof(k.Proc) + unsafe.Offsetof(k.Proc.P_starttime) + unsafe.Offsetof(k.Proc.P_starttime.Usec), kpStartUsecOff},
		{"p_stat", unsafe.Offsetof(k.Proc) + unsafe.Offsetof(k.Proc.P_stat), kpStatOff},
		{"p_pid", unsafe.Offsetof(k.Proc) + unsafe.Offsetof(k.Proc.P_pid), kpPidOff},
		{"p_comm", unsafe.Offsetof(k.Proc) + unsafe.Offsetof(k.Proc.P_comm), kpCommOff},
		{"p_comm length", unsafe.Sizeof(k.Proc.P_comm), kpCommLen},
		{"e_ppid", unsafe.Offsetof(k.Eproc) + unsafe.Offsetof(k.Eproc.Ppid), kpPpidOff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Fatalf("offset %d, kinfoproc.go says %d", tt.got, tt.want)
			}
		})
	}
}

// TestProcInfoSelf reads this process from the kernel: its parent is
// os.Getppid, and x/sys's own decoding agrees on the start time.
func TestProcInfoSelf(t *testing.T) {
	pid := int32(os.Getpid())
	ppid, p, comm, err := ProcInfo(pid)
	if err != nil || ppid != int32(os.Getppid()) || p.Start == 0 || comm == "" {
		t.Fatalf("ProcInfo = %d %+v %q %v", ppid, p, comm, err)
	}
	k, err := unix.SysctlKinfoProc("kern.proc.pid", int(pid))
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(k.Proc.P_starttime.Sec)*1e6 + uint64(k.Proc.P_starttime.Usec); p.Start != want {
		t.Fatalf("start %d, x/sys says %d", p.Start, want)
	}
}
