//go:build linux && (amd64 || arm64)

package supervise

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Available says whether this kernel can hold opens: seccomp user
// notification with SECCOMP_ADDFD_FLAG_SEND, which Linux 5.14 added. The
// notification sizes must be the ones this package's structures have.
func Available() error {
	var sizes struct{ notif, resp, data uint16 }
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_NOTIF_SIZES, 0, uintptr(unsafe.Pointer(&sizes))); errno != 0 {
		return fmt.Errorf("no seccomp user notification: %w", errno)
	}
	if int(sizes.notif) < int(unsafe.Sizeof(notif{})) || int(sizes.resp) < int(unsafe.Sizeof(notifResp{})) {
		return fmt.Errorf("unexpected seccomp notification sizes %d/%d", sizes.notif, sizes.resp)
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return fmt.Errorf("uname: %w", err)
	}
	var major, minor int
	if _, err := fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &major, &minor); err != nil {
		return fmt.Errorf("kernel release %q: %w", unix.ByteSliceToString(u.Release[:]), err)
	}
	if major < 5 || major == 5 && minor < 14 {
		return fmt.Errorf("Linux %d.%d: handing a descriptor to a held call needs 5.14 or later", major, minor)
	}
	return nil
}
