package engine

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// handOutWait bounds how long the daemon waits for a command's inner
// step to hand its listener out: bubblewrap builds the view first.
const handOutWait = 30 * time.Second

// receiveListeners takes the listeners a command's inner step sends over
// uc (one message, SCM_RIGHTS) and keeps only what it must be: listening
// TCP sockets on a loopback address, in a network namespace other than
// the daemon's. Anything else is closed and refused: the daemon would
// otherwise serve its proxy to whoever reaches that socket.
func receiveListeners(uc *net.UnixConn) ([]net.Listener, error) {
	if err := uc.SetReadDeadline(time.Now().Add(handOutWait)); err != nil {
		return nil, err
	}
	defer uc.SetReadDeadline(time.Time{})
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4*4))
	_, oobn, flags, _, err := uc.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, fmt.Errorf("receive the listener: %w", err)
	}
	fds, err := rights(oob[:oobn])
	if err != nil {
		return nil, err
	}
	if flags&unix.MSG_CTRUNC != 0 || len(fds) == 0 {
		closeAll(fds)
		return nil, errors.New("receive the listener: no descriptor, or too many")
	}
	var lns []net.Listener
	for _, fd := range fds {
		ln, err := loopbackListener(fd)
		if err != nil {
			closeAll(fds)
			for _, l := range lns {
				l.Close()
			}
			return nil, err
		}
		lns = append(lns, ln)
	}
	return lns, nil
}

// rights are the descriptors in a control message.
func rights(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, fmt.Errorf("receive the listener: %w", err)
	}
	var fds []int
	for _, m := range msgs {
		got, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		fds = append(fds, got...)
	}
	return fds, nil
}

// loopbackListener is fd as a net.Listener once it is checked to be a
// listening TCP socket bound to loopback in another network namespace;
// fd itself is closed either way (net.FileListener dups it).
func loopbackListener(fd int) (net.Listener, error) {
	f := os.NewFile(uintptr(fd), "pathgrant-proxy-listener")
	defer f.Close()
	if err := checkListener(fd); err != nil {
		return nil, err
	}
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("the command's listener: %w", err)
	}
	return ln, nil
}

// checkListener refuses anything but a listening TCP socket on loopback
// in a network namespace that is not the daemon's.
func checkListener(fd int) error {
	if v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err != nil || v != 1 {
		return fmt.Errorf("the command's listener is not a listening socket")
	}
	if t, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err != nil || t != unix.SOCK_STREAM {
		return fmt.Errorf("the command's listener is not a stream socket")
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return fmt.Errorf("the command's listener: %w", err)
	}
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		if a.Addr != [4]byte{127, 0, 0, 1} {
			return fmt.Errorf("the command's listener is not on loopback")
		}
	case *unix.SockaddrInet6:
		if a.Addr != [16]byte{15: 1} {
			return fmt.Errorf("the command's listener is not on loopback")
		}
	default:
		return fmt.Errorf("the command's listener is not a TCP socket")
	}
	return otherNamespace(fd)
}

// otherNamespace refuses a socket in the daemon's own network namespace:
// one there would be reachable by every process of the machine.
func otherNamespace(fd int) error {
	theirs, err := unix.GetsockoptUint64(fd, unix.SOL_SOCKET, unix.SO_NETNS_COOKIE)
	if err != nil {
		return fmt.Errorf("the command's listener: its network namespace cannot be told (%w)", err)
	}
	own, err := ownNetnsCookie()
	if err != nil {
		return err
	}
	if theirs == own {
		return errors.New("the command's listener is in the daemon's own network namespace")
	}
	return nil
}

// ownNetnsCookie is the daemon's network namespace's cookie.
func ownNetnsCookie() (uint64, error) {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("the daemon's network namespace: %w", err)
	}
	defer unix.Close(s)
	c, err := unix.GetsockoptUint64(s, unix.SOL_SOCKET, unix.SO_NETNS_COOKIE)
	if err != nil {
		return 0, fmt.Errorf("the daemon's network namespace: %w", err)
	}
	return c, nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// socketPair is a connected pair of Unix stream sockets, closed on exec.
func socketPair() ([2]int, error) {
	return unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
}
