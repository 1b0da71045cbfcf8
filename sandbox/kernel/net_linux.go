package kernel

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// HandOutListener makes the network namespace's way out, before the
// command runs: it listens on the namespace's own loopback at port
// (127.0.0.1, and ::1 where the namespace has IPv6) and sends the
// listeners over the Unix socket at fd to the daemon, which accepts on
// them from outside the sandbox (a socket keeps the namespace it was
// made in). Nothing inside the sandbox relays a byte, and nothing the
// command can kill holds the way out; fd and the listeners are closed
// here, so the command inherits neither.
func HandOutListener(fd, port int) error {
	defer unix.Close(fd)
	v4, err := listenLoopback(unix.AF_INET, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
	if err != nil {
		return fmt.Errorf("listen on 127.0.0.1:%d: %w", port, err)
	}
	fds := []int{v4}
	if v6, err := listenLoopback(unix.AF_INET6, &unix.SockaddrInet6{Port: port, Addr: [16]byte{15: 1}}); err == nil {
		fds = append(fds, v6)
	}
	defer func() {
		for _, l := range fds {
			unix.Close(l)
		}
	}()
	for {
		err = unix.Sendmsg(fd, []byte{'L'}, unix.UnixRights(fds...), nil, 0)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("hand the listener to pathgrant's proxy: %w", err)
	}
	return nil
}

// listenLoopback is a listening TCP socket of family bound to sa.
func listenLoopback(family int, sa unix.Sockaddr) (int, error) {
	s, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if family == unix.AF_INET6 {
		_ = unix.SetsockoptInt(s, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 1)
	}
	if err := unix.Bind(s, sa); err != nil {
		unix.Close(s)
		return -1, err
	}
	if err := unix.Listen(s, unix.SOMAXCONN); err != nil {
		unix.Close(s)
		return -1, err
	}
	return s, nil
}
