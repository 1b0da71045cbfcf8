package engine

// procStat is what the kernel says of one process at one moment: enough
// to name it for its whole life (pid and start time), to walk up to its
// parent, to tell an agent's shells from the agent, to tell that it
// has exited though not yet been reaped, and its process group. Each OS reads it its own way
// (procinfo_linux.go, procinfo_darwin.go).
type procStat struct {
	ppid   int32
	start  uint64 // as Proc.Start
	comm   string
	zombie bool
	group  int32 // its process group (groups.go); 0 where not read (macOS)
}

// ProcInfo reads a process's parent, start time and command name from the
// kernel: /proc/PID/stat on Linux, the kern.proc.pid sysctl on macOS.
func ProcInfo(pid int32) (ppid int32, p Proc, comm string, err error) {
	st, err := readProcStat(pid)
	if err != nil {
		return 0, Proc{}, "", err
	}
	return st.ppid, Proc{PID: pid, Start: st.start}, st.comm, nil
}

// procStart reads a process's start time and whether it is a zombie
// (exited, not yet reaped).
func procStart(pid int32) (start uint64, zombie bool, err error) {
	st, err := readProcStat(pid)
	if err != nil {
		return 0, false, err
	}
	return st.start, st.zombie, nil
}
