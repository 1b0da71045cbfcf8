package applink

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// bootPair is the bootstrap socket pair: the daemon's end, which sees
// each sender's credentials, and the app's, to hand down.
func bootPair() (*os.File, *os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("bootstrap socket for the app: %w", err)
	}
	if err := unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_PASSCRED, 1); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, nil, fmt.Errorf("bootstrap socket for the app: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "pathgrant-app-boot"), os.NewFile(uintptr(fds[1]), "pathgrant-app-boot"), nil
}

// awaitHello waits up to timeout for the app (pid) to send its ends of
// the link. A message from any other process is thrown away, its
// descriptors closed, and the wait goes on.
func awaitHello(boot *os.File, pid int, timeout time.Duration) (events, calls net.Conn, err error) {
	fd := int(boot.Fd())
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return nil, nil, fmt.Errorf("the app sent no link in %s", timeout)
		}
		tv := unix.NsecToTimeval(left.Nanoseconds())
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			return nil, nil, fmt.Errorf("wait for the app's link: %w", err)
		}
		fds, err := readHello(fd, pid)
		switch {
		case err == errBadHello:
			continue
		case errors.Is(err, unix.EAGAIN):
			return nil, nil, fmt.Errorf("the app sent no link in %s", timeout)
		}
		if err != nil {
			return nil, nil, err
		}
		return linkConns(fds)
	}
}

// readHello reads one bootstrap message and returns its two descriptors
// when pid sent it as this user.
func readHello(fd, pid int) ([]int, error) {
	buf := make([]byte, len(helloText)+1)
	oob := make([]byte, unix.CmsgSpace(unix.SizeofUcred)+unix.CmsgSpace(2*4))
	n, oobn, flags, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("wait for the app's link: %w", err)
	}
	if n == 0 && oobn == 0 {
		return nil, fmt.Errorf("the app closed its bootstrap socket before it linked")
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return nil, fmt.Errorf("the app's link: %w", err)
	}
	var cred *unix.Ucred
	var fds []int
	for i := range msgs {
		if c, err := unix.ParseUnixCredentials(&msgs[i]); err == nil {
			cred = c
		} else if rights, err := unix.ParseUnixRights(&msgs[i]); err == nil {
			fds = append(fds, rights...)
		}
	}
	ok := cred != nil && int(cred.Pid) == pid && int(cred.Uid) == os.Getuid() &&
		string(buf[:n]) == helloText && len(fds) == 2 && flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) == 0
	if !ok {
		for _, d := range fds {
			unix.Close(d)
		}
		return nil, errBadHello
	}
	return fds, nil
}

// linkConns are the received ends as conns: events, then calls.
func linkConns(fds []int) (net.Conn, net.Conn, error) {
	events, err := fileConn(fds[0], "events")
	if err != nil {
		unix.Close(fds[1])
		return nil, nil, err
	}
	calls, err := fileConn(fds[1], "calls")
	if err != nil {
		events.Close()
		return nil, nil, err
	}
	return events, calls, nil
}

// sendHello makes the link's two socket pairs and sends the daemon its
// ends over the bootstrap socket, with this process's credentials; it
// returns the app's ends, events then calls.
func sendHello() (net.Conn, net.Conn, error) {
	if _, err := unix.GetsockoptInt(bootFD, unix.SOL_SOCKET, unix.SO_TYPE); err != nil {
		return nil, nil, fmt.Errorf("%w (descriptor %d: %v)", errNotStarted, bootFD, err)
	}
	var mine, theirs [2]int
	for i := range 2 {
		p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("the link: %w", err)
		}
		mine[i], theirs[i] = p[0], p[1]
	}
	cred := unix.UnixCredentials(&unix.Ucred{Pid: int32(os.Getpid()), Uid: uint32(os.Getuid()), Gid: uint32(os.Getgid())})
	oob := append(cred, unix.UnixRights(theirs[0], theirs[1])...)
	err := unix.Sendmsg(bootFD, []byte(helloText), oob, nil, 0)
	unix.Close(theirs[0])
	unix.Close(theirs[1])
	unix.Close(bootFD)
	if err != nil {
		unix.Close(mine[0])
		unix.Close(mine[1])
		return nil, nil, fmt.Errorf("%w (send the link: %v)", errNotStarted, err)
	}
	return linkConns(mine[:])
}

// forbidTracing makes this process undumpable: no process of the same
// user (an agent's included) may ptrace it, read its memory, where the
// approval codes are, or take its descriptors (pidfd_getfd).
func forbidTracing() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("make the app undumpable: %w", err)
	}
	return nil
}
