package applink

import (
	"errors"
	"fmt"
	"net"
	"os"
)

// The link is made in two steps, so that nothing of it exists while the
// app can still be traced. Right after exec a process is dumpable: a
// process of the same user could take a descriptor it inherited
// (pidfd_getfd) before the app makes itself undumpable. So the app
// inherits only a bootstrap socket (bootFD). Once undumpable it makes
// the two socket pairs of the link itself and sends the daemon their
// other ends over the bootstrap socket, with its credentials, which the
// kernel vouches for. The daemon takes the ends only from the pid it
// started: whatever a process that took the bootstrap socket sends is
// thrown away, and what it could read is the app's ends, never the
// daemon's events or a way to decide.

// bootFD is the bootstrap socket's descriptor in the app.
const bootFD = 3

// helloText is what the app's one bootstrap message says.
const helloText = "pathgrant-app-link"

// errBadHello is a bootstrap message that is not the app's.
var errBadHello = errors.New("a bootstrap message not from the app")

// fileConn turns a received descriptor into a net.Conn (and closes the
// descriptor, which the conn duplicated).
func fileConn(fd int, name string) (net.Conn, error) {
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("the app's %s: %w", name, err)
	}
	return c, nil
}
