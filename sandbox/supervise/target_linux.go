//go:build linux && (amd64 || arm64)

package supervise

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pathMax is the longest path the kernel takes, its terminating NUL
// included.
const pathMax = 4096

var errTooLong = errors.New("path longer than PATH_MAX")

// reader reads what the supervisor needs of a waiting process, reusing
// its buffers: it runs for every open the command makes.
type reader struct {
	buf  [pathMax]byte
	link [pathMax]byte
	name []byte
}

var pageSize = uint64(os.Getpagesize())

// path reads the NUL-terminated string at addr in process tid, once, up
// to the end of a page at a time (a string may end just before an
// unmapped page). The bytes are the reader's until its next call.
func (r *reader) path(tid int, addr uint64) ([]byte, error) {
	have := 0
	for have < pathMax {
		n := int(min(pageSize-addr%pageSize, uint64(pathMax-have)))
		chunk := r.buf[have : have+n]
		got, err := unix.ProcessVMReadv(tid, []unix.Iovec{{Base: &chunk[0], Len: uint64(n)}},
			[]unix.RemoteIovec{{Base: uintptr(addr), Len: n}}, 0)
		if err != nil {
			return nil, fmt.Errorf("read the path: %w", err)
		}
		if i := bytes.IndexByte(chunk[:got], 0); i >= 0 {
			return r.buf[:have+i], nil
		}
		if got < n {
			return nil, errors.New("read the path: short read")
		}
		have += n
		addr += uint64(n)
	}
	return nil, errTooLong
}

// dir reads where a relative path of tid starts: its working directory
// (dirfd AT_FDCWD) or the directory its descriptor names. The bytes are
// the reader's until its next call.
func (r *reader) dir(tid int, dirfd int32) ([]byte, error) {
	r.name = append(strconv.AppendInt(append(r.name[:0], "/proc/"...), int64(tid), 10), '/')
	if dirfd == unix.AT_FDCWD {
		r.name = append(r.name, "cwd"...)
	} else {
		r.name = strconv.AppendInt(append(r.name, "fd/"...), int64(dirfd), 10)
	}
	n, err := unix.Readlink(unsafe.String(&r.name[0], len(r.name)), r.link[:])
	if err != nil {
		return nil, err
	}
	return r.link[:n], nil
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

// Program is what the prompt names as the program that opened the file:
// its command line, NULs as spaces, bounded.
func Program(tid int) string {
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
