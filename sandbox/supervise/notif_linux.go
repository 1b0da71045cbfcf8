//go:build linux && (amd64 || arm64)

package supervise

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The kernel's seccomp notification structures (linux/seccomp.h).
type seccompData struct {
	nr   int32
	arch uint32
	ip   uint64
	args [6]uint64
}

type notif struct {
	id    uint64
	pid   uint32
	flags uint32
	data  seccompData
}

type notifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

type notifAddfd struct {
	id         uint64
	flags      uint32
	srcfd      uint32
	newfd      uint32
	newfdFlags uint32
}

func ioctl(fd int, req uint, arg unsafe.Pointer) (uintptr, error) {
	r, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if errno != 0 {
		return r, errno
	}
	return r, nil
}

func ioctlValue(fd int, req uint, arg uintptr) (uintptr, error) {
	r, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), arg)
	if errno != 0 {
		return r, errno
	}
	return r, nil
}

// recv takes the next notification (blocking).
func recv(listener int, n *notif) error {
	*n = notif{}
	_, err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(n))
	return err
}

// proceed lets the call go on to the kernel as if there were no filter.
func proceed(listener int, id uint64) error {
	r := notifResp{id: id, flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
	_, err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&r))
	return err
}

// fail ends the call with -errno.
func fail(listener int, id uint64, errno unix.Errno) error {
	r := notifResp{id: id, error: -int32(errno)}
	_, err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&r))
	return err
}

// hand installs fd in the waiting process and ends its call with the new
// descriptor's number, atomically (SECCOMP_ADDFD_FLAG_SEND, Linux 5.14).
func hand(listener int, id uint64, fd int, cloexec bool) error {
	a := notifAddfd{id: id, flags: unix.SECCOMP_ADDFD_FLAG_SEND, srcfd: uint32(fd)}
	if cloexec {
		a.newfdFlags = unix.O_CLOEXEC
	}
	_, err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_ADDFD, unsafe.Pointer(&a))
	return err
}

// valid reports whether the call id still waits: its process has not
// been interrupted or died, so what was read of it is still its own.
func valid(listener int, id uint64) bool {
	_, err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id))
	return err == nil
}

// syncWakeUp asks the kernel to wake the supervisor and the waiting
// process on the same processor (Linux 6.6), which halves the cost of a
// call that continues at once; an older kernel keeps the default.
func syncWakeUp(listener int) {
	_, _ = ioctlValue(listener, unix.SECCOMP_IOCTL_NOTIF_SET_FLAGS, unix.SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP)
}
