//go:build linux && (amd64 || arm64)

package supervise

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openCall is one system call that opens a file by name.
type openCall struct {
	nr                        int
	dirArg, pathArg, flagsArg int // argument positions; -1: none (dir) or in memory (flags)
}

// callOf returns the open the notification's system call is.
func callOf(nr int32) (openCall, bool) {
	for _, c := range openCalls {
		if int32(c.nr) == nr {
			return c, true
		}
	}
	return openCall{}, false
}

// BPF opcodes (linux/filter.h).
const (
	bpfLdWAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJsetK  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRetK   = unix.BPF_RET | unix.BPF_K
)

// seccomp_data offsets: nr, arch, then the arguments (low word first on
// these little-endian machines).
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

// filterProgram is the filter: an open of this architecture that may be a
// plain read (its flags ask for nothing else, or openat2's are in
// memory) goes to the listener; everything else, writes included,
// continues to the kernel as if there were no filter.
func filterProgram() []unix.SockFilter {
	allow := stmt(bpfRetK, unix.SECCOMP_RET_ALLOW)
	notify := stmt(bpfRetK, unix.SECCOMP_RET_USER_NOTIF)
	p := []unix.SockFilter{
		stmt(bpfLdWAbs, offArch),
		jump(bpfJeqK, auditArch, 1, 0),
		allow,
		stmt(bpfLdWAbs, offNr),
	}
	// one compare per call, then "allow", then each call's block
	var blocks [][]unix.SockFilter
	for _, c := range openCalls {
		if c.flagsArg < 0 {
			blocks = append(blocks, []unix.SockFilter{notify})
			continue
		}
		blocks = append(blocks, []unix.SockFilter{
			stmt(bpfLdWAbs, uint32(offArgs+8*c.flagsArg)),
			jump(bpfJsetK, notReadOnly, 0, 1),
			allow,
			notify,
		})
	}
	start := len(openCalls) + 1 // from the first compare to the first block
	for i, c := range openCalls {
		p = append(p, jump(bpfJeqK, uint32(c.nr), uint8(start-i-1), 0))
		start += len(blocks[i])
	}
	p = append(p, allow)
	for _, b := range blocks {
		p = append(p, b...)
	}
	return p
}

func stmt(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }

func jump(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
	return unix.SockFilter{Code: code, K: k, Jt: jt, Jf: jf}
}

// Install puts the filter on the calling thread, which must be locked to
// its goroutine, have no_new_privs set and go on to exec the command, and
// sends the listener over the Unix socket sock to the supervisor outside
// the sandbox. It closes sock and its own copy of the listener whatever
// happens, so the command inherits neither.
//
// Where the kernel has it (Linux 5.19), a call the supervisor took waits
// through the signals the command handles (SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV):
// else a timer of the command's would end every wait and raise the
// request again, each time. A fatal signal still ends it, and the front
// end ends the wait on Ctrl-C (Supervisor.Interrupt).
func Install(sock int) error {
	defer unix.Close(sock)
	if t, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_TYPE); err != nil || t != unix.SOCK_SEQPACKET {
		return fmt.Errorf("%w: descriptor %d is no supervisor's socket", ErrNotInstalled, sock)
	}
	p := filterProgram()
	prog := unix.SockFprog{Len: uint16(len(p)), Filter: &p[0]}
	var fd uintptr
	var errno unix.Errno
	for _, flags := range []uintptr{unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
		unix.SECCOMP_FILTER_FLAG_NEW_LISTENER} {
		fd, _, errno = unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&prog)))
		if errno != unix.EINVAL {
			break
		}
	}
	if errno != 0 {
		return fmt.Errorf("%w: seccomp filter: %w", ErrNotInstalled, errno)
	}
	defer unix.Close(int(fd))
	if err := unix.Sendmsg(sock, []byte{'L'}, unix.UnixRights(int(fd)), nil, 0); err != nil {
		return fmt.Errorf("send the seccomp listener: %w", err)
	}
	return nil
}

// ErrNotInstalled is wrapped by Install's errors that leave the command
// as it was, running without a supervisor. Any other error leaves the
// filter installed and no one to answer it: the command must not run.
var ErrNotInstalled = errors.New("no supervisor")

// errNoListener is Receive's error when the message held no listener.
var errNoListener = errors.New("no seccomp listener received")

// Receive takes the listener Install sent on sock: exactly one
// descriptor, and a seccomp listener (the anonymous inode's name says
// so); anything else is closed and refused.
func Receive(sock int) (int, error) {
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4*4))
	_, oobn, _, _, err := unix.Recvmsg(sock, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("receive the seccomp listener: %w", err)
	}
	var fds []int
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if got, err := unix.ParseUnixRights(&m); err == nil {
				fds = append(fds, got...)
			}
		}
	}
	if len(fds) != 1 || !isListener(fds[0]) {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return -1, errNoListener
	}
	return fds[0], nil
}

// isListener reports whether fd is a seccomp notification listener.
func isListener(fd int) bool {
	name, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	return err == nil && name == "anon_inode:seccomp notify"
}
