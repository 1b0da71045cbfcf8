//go:build linux && (amd64 || arm64)

package supervise

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pathMax is the longest path the kernel takes, its terminating NUL
// included.
const pathMax = 4096

var errTooLong = errors.New("path longer than PATH_MAX")

// readString reads the NUL-terminated string at addr in process tid, once,
// a page at a time (a string may end just before an unmapped page).
func readString(tid int, addr uint64) (string, error) {
	buf := make([]byte, 0, 256)
	page := uint64(os.Getpagesize())
	for len(buf) < pathMax {
		n := min(page-addr%page, uint64(pathMax-len(buf)))
		chunk := make([]byte, n)
		got, err := unix.ProcessVMReadv(tid, []unix.Iovec{{Base: &chunk[0], Len: n}},
			[]unix.RemoteIovec{{Base: uintptr(addr), Len: int(n)}}, 0)
		if err != nil {
			return "", fmt.Errorf("read the path: %w", err)
		}
		if i := bytes.IndexByte(chunk[:got], 0); i >= 0 {
			return string(append(buf, chunk[:i]...)), nil
		}
		if uint64(got) < n {
			return "", errors.New("read the path: short read")
		}
		buf = append(buf, chunk...)
		addr += n
	}
	return "", errTooLong
}

// readHow reads openat2's struct open_how (its first 24 bytes: the flags,
// the mode and the resolve flags); size is the call's own argument.
func readHow(tid int, addr, size uint64) (unix.OpenHow, error) {
	var how unix.OpenHow
	if size < unix.SizeofOpenHow {
		return how, errors.New("open_how too small")
	}
	got, err := unix.ProcessVMReadv(tid, []unix.Iovec{{Base: (*byte)(unsafe.Pointer(&how)), Len: unix.SizeofOpenHow}},
		[]unix.RemoteIovec{{Base: uintptr(addr), Len: unix.SizeofOpenHow}}, 0)
	if err == nil && got != unix.SizeofOpenHow {
		err = errors.New("short read")
	}
	if err != nil {
		return how, fmt.Errorf("read open_how: %w", err)
	}
	return how, nil
}

// procLink is /proc/TID/cwd for the working directory (dirfd AT_FDCWD), else
// /proc/TID/fd/N.
func procLink(tid int, dirfd int32) string {
	if dirfd == unix.AT_FDCWD {
		return fmt.Sprintf("/proc/%d/cwd", tid)
	}
	return fmt.Sprintf("/proc/%d/fd/%d", tid, dirfd)
}

// program is what the prompt names as the program that opened the file:
// its command line, NULs as spaces, bounded.
func program(tid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", tid))
	if err != nil || len(b) == 0 {
		b, _ = os.ReadFile(fmt.Sprintf("/proc/%d/comm", tid))
	}
	s := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
	if len(s) > maxProgram {
		s = s[:maxProgram] + "…"
	}
	return s
}

// maxProgram bounds the program's command line sent to the daemon.
const maxProgram = 200
