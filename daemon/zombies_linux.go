package daemon

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// zombieChildren lists the pids of this process's children that have
// exited and wait to be reaped, from /proc/PID/stat.
func zombieChildren() []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name is in parentheses and may itself contain ") ".
		fields := bytes.Fields(data[bytes.LastIndexByte(data, ')')+1:])
		if len(fields) < 2 || string(fields[0]) != "Z" {
			continue
		}
		if ppid, err := strconv.Atoi(string(fields[1])); err == nil && ppid == self {
			out = append(out, pid)
		}
	}
	return out
}

// pidfdsHeld is the set of pids the pidfds open in this process name,
// but for the descriptor skip.
func pidfdsHeld(skip int) (map[int]bool, error) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, err
	}
	held := map[int]bool{}
	for _, e := range ents {
		if e.Name() == strconv.Itoa(skip) {
			continue
		}
		if link, err := os.Readlink("/proc/self/fd/" + e.Name()); err != nil || link != "anon_inode:[pidfd]" {
			continue
		}
		info, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(info), "\n") {
			if v, ok := strings.CutPrefix(line, "Pid:"); ok {
				if pid, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					held[pid] = true
				}
			}
		}
	}
	return held, nil
}
