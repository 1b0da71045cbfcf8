package engine

import (
	"net"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReceiveListenersRefuses: the daemon serves its proxy only on a
// listening TCP socket on loopback in another network namespace than its
// own; anything else sent over a command's way out is closed and
// refused: a listener of the daemon's own namespace would serve every
// process of the machine, a non-loopback one the network.
func TestReceiveListenersRefuses(t *testing.T) {
	tests := []struct {
		name string
		fd   func(t *testing.T) int
		want string
	}{
		{"a listener in the daemon's own namespace", func(t *testing.T) int { return listenerFD(t, "127.0.0.1:0") }, "own network namespace"},
		{"a listener on every address", func(t *testing.T) int { return listenerFD(t, "0.0.0.0:0") }, "not on loopback"},
		{"a connected socket", func(t *testing.T) int {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			return dupFD(t, c.(*net.TCPConn))
		}, "not a listening socket"},
		{"a file", func(t *testing.T) int {
			fd, err := unix.Open(os.Args[0], unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			return fd
		}, "not a listening socket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(pair[1])
			f := os.NewFile(uintptr(pair[0]), "ours")
			fc, err := net.FileConn(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			defer fc.Close()
			sent := tt.fd(t)
			if err := unix.Sendmsg(pair[1], []byte{'L'}, unix.UnixRights(sent), nil, 0); err != nil {
				t.Fatal(err)
			}
			unix.Close(sent)
			lns, err := receiveListeners(fc.(*net.UnixConn))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				for _, l := range lns {
					l.Close()
				}
				t.Fatalf("receiveListeners = %d listeners, %v; want refused: %q", len(lns), err, tt.want)
			}
		})
	}
}

// listenerFD is a listening socket on addr, as a descriptor of its own.
func listenerFD(t *testing.T, addr string) int {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return dupFD(t, ln.(*net.TCPListener))
}

// dupFD is a duplicate of c's descriptor.
func dupFD(t *testing.T, c interface {
	File() (*os.File, error)
}) int {
	t.Helper()
	f, err := c.File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return fd
}
