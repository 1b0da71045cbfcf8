package engine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// readProcStat reads /proc/PID/stat.
func readProcStat(pid int32) (procStat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	st, err := parseProcStat(data)
	if err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return st, nil
}

// parseProcStat reads the fields pathgrant needs from a /proc/PID/stat
// line: state (field 3), ppid (4), pgrp (5) and starttime (22, clock
// ticks since boot). The command name is in parentheses and may itself contain ") ",
// so the fields are counted from the last ')'.
func parseProcStat(data []byte) (procStat, error) {
	open, closing := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || closing < open {
		return procStat{}, errors.New("malformed")
	}
	fields := bytes.Fields(data[closing+1:])
	if len(fields) < 20 {
		return procStat{}, errors.New("too few fields")
	}
	ppid, err1 := strconv.ParseInt(string(fields[1]), 10, 32)
	start, err2 := strconv.ParseUint(string(fields[19]), 10, 64)
	group, err3 := strconv.ParseInt(string(fields[2]), 10, 32)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, errors.New("malformed numbers")
	}
	state := string(fields[0])
	return procStat{ppid: int32(ppid), start: start, comm: string(data[open+1 : closing]),
		zombie: state == "Z" || state == "X", group: int32(group)}, nil
}
