//go:build linux

package testhost

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// netnsDir is where `ip netns add` mounts a named namespace.
const netnsDir = "/run/netns"

// vethTries bounds the search for a free 10.231.N.0/30: with 250 ranges a
// clash is rare, so a few tries are plenty and a broken `ip` fails fast.
const vethTries = 20

// netns is the namespace a host serves from and the veth pair that is its
// only way in.
type netns struct {
	name     string       // the namespace, as `ip netns list` shows it
	n        int          // the N of 10.231.N.0/30
	hostLink string       // the veth end in the machine's namespace
	nsLink   string       // the veth end inside name
	rng      netip.Prefix // 10.231.N.0/30
}

// path is the namespace's file, whose fd setns takes.
func (ns *netns) path() string { return filepath.Join(netnsDir, ns.name) }

// gateway is the machine's address on the veth.
func (ns *netns) gateway() netip.Addr { return ns.rng.Addr().Next() }

// addr is the host's address inside the namespace.
func (ns *netns) addr() netip.Addr { return ns.gateway().Next() }

// cannotMakeNamespace says why this process cannot make a network
// namespace, or "" when it can: making one needs `ip`, and mounting and
// entering it needs CAP_SYS_ADMIN besides CAP_NET_ADMIN for the links.
func cannotMakeNamespace() string {
	if _, err := exec.LookPath("ip"); err != nil {
		return "the ip command (iproute2) is not installed: " + err.Error()
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return "cannot read this process's capabilities: " + err.Error()
	}
	for _, c := range []struct {
		bit  uint
		name string
	}{{unix.CAP_NET_ADMIN, "CAP_NET_ADMIN"}, {unix.CAP_SYS_ADMIN, "CAP_SYS_ADMIN"}} {
		if data[c.bit/32].Effective&(1<<(c.bit%32)) == 0 {
			return fmt.Sprintf("this process lacks %s (euid %d): a test host needs root to make a network namespace", c.name, os.Geteuid())
		}
	}
	return ""
}

// makeNetns makes the namespace and its veth pair, both ends up and
// addressed. Each step's undo is registered with t.Cleanup before the step
// runs, so a failure anywhere leaves nothing behind; the namespace is
// claimed first, so a process that dies without its cleanups leaves it to
// the next Start's sweep (leftovers.go).
func makeNetns(t testing.TB) (*netns, error) {
	suffix, err := randomHex(4)
	if err != nil {
		return nil, err
	}
	ns := &netns{name: "pgt-" + suffix}
	if _, err := os.Stat(ns.path()); err == nil {
		return nil, fmt.Errorf("namespace %s already exists", ns.name)
	}
	owner, err := claim(ns.name)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { logFailure(t, release(ns.name, owner)) })
	t.Cleanup(func() {
		if _, err := os.Stat(ns.path()); err == nil {
			logFailure(t, ip("netns", "delete", ns.name))
		}
	})
	if err := ip("netns", "add", ns.name); err != nil {
		return nil, err
	}
	if err := ip("-n", ns.name, "link", "set", "lo", "up"); err != nil {
		return nil, err
	}
	if err := addVeth(t, ns); err != nil {
		return nil, err
	}
	return ns, addressVeth(ns)
}

// addVeth makes the veth pair on a free 10.231.N.0/30. The machine's end is
// named after N, so two hosts (in this process or another) that pick the
// same N clash on the name, which the kernel refuses atomically, and the
// loser tries another N.
func addVeth(t testing.TB, ns *netns) error {
	for range vethTries {
		n, err := randomInt(1, 250)
		if err != nil {
			return err
		}
		rng := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 231, byte(n), 0}), 30)
		if inUse, err := rangeInUse(rng); err != nil {
			return err
		} else if inUse {
			continue
		}
		host, peer := fmt.Sprintf("pgth%d", n), fmt.Sprintf("pgtn%d", n)
		err = ip("link", "add", host, "type", "veth", "peer", "name", peer, "netns", ns.name)
		if errors.Is(err, errExists) {
			continue
		}
		if err != nil {
			return err
		}
		t.Cleanup(func() { logFailure(t, ip("link", "delete", host)) })
		ns.n, ns.hostLink, ns.nsLink, ns.rng = n, host, peer, rng
		return nil
	}
	return fmt.Errorf("no free 10.231.N.0/30 in %d tries", vethTries)
}

// addressVeth gives each end its address and brings it up.
func addressVeth(ns *netns) error {
	gw := netip.PrefixFrom(ns.gateway(), 30).String()
	in := netip.PrefixFrom(ns.addr(), 30).String()
	for _, args := range [][]string{
		{"addr", "add", gw, "dev", ns.hostLink},
		{"link", "set", ns.hostLink, "up"},
		{"-n", ns.name, "addr", "add", in, "dev", ns.nsLink},
		{"-n", ns.name, "link", "set", ns.nsLink, "up"},
	} {
		if err := ip(args...); err != nil {
			return err
		}
	}
	return nil
}

// rangeInUse reports whether an address of the machine's namespace is
// already in rng: the same /30 on two links would make the route to the
// host ambiguous.
func rangeInUse(rng netip.Prefix) (bool, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false, fmt.Errorf("listing the machine's addresses: %w", err)
	}
	for _, a := range addrs {
		ipnet, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		if p, ok := netip.AddrFromSlice(ipnet.IP); ok && rng.Contains(p.Unmap()) {
			return true, nil
		}
	}
	return false, nil
}

// errExists is a link or address the kernel already has.
var errExists = errors.New("already exists")

// ip runs the ip command; its stderr is the error's text, and "File exists"
// is errExists so a clash can be told from a failure.
func ip(args ...string) error {
	var stderr bytes.Buffer
	cmd := exec.Command("ip", args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "File exists") {
			return fmt.Errorf("ip %s: %s: %w", strings.Join(args, " "), msg, errExists)
		}
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, msg)
	}
	return nil
}

// logFailure reports a cleanup step that failed: it cannot fail the test
// after the fact in a useful way, but a leftover namespace or link must be
// visible in the log.
func logFailure(t testing.TB, err error) {
	if err != nil {
		t.Errorf("test host cleanup: %v", err)
	}
}

// listenIn opens TCP listeners on addrs from inside the namespace at
// nsPath. A socket belongs to the namespace of the thread that made it and
// keeps it for life, so the thread enters the namespace only to listen:
// the handlers then run in this process like any other goroutine.
func listenIn(nsPath string, addrs []string) ([]net.Listener, error) {
	type result struct {
		ls  []net.Listener
		err error
	}
	done := make(chan result, 1)
	go func() {
		// The thread is given back only if it returned to its own
		// namespace; otherwise the runtime ends it with this goroutine.
		runtime.LockOSThread()
		ls, restored, err := listenOnThread(nsPath, addrs)
		if restored {
			runtime.UnlockOSThread()
		}
		done <- result{ls, err}
	}()
	r := <-done
	return r.ls, r.err
}

// listenOnThread does listenIn's work on the locked thread; restored says
// whether the thread is back in the namespace it started in.
func listenOnThread(nsPath string, addrs []string) (ls []net.Listener, restored bool, err error) {
	self, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		return nil, true, fmt.Errorf("opening this thread's namespace: %w", err)
	}
	defer self.Close()
	target, err := os.Open(nsPath)
	if err != nil {
		return nil, true, fmt.Errorf("opening namespace %s: %w", nsPath, err)
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return nil, true, fmt.Errorf("entering namespace %s: %w", nsPath, err)
	}
	ls, err = listenAll(addrs)
	if serr := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); serr != nil {
		closeAll(ls)
		return nil, false, fmt.Errorf("leaving namespace %s: %w", nsPath, serr)
	}
	return ls, true, err
}

// listenAll listens on every address, or on none.
func listenAll(addrs []string) ([]net.Listener, error) {
	var ls []net.Listener
	for _, a := range addrs {
		l, err := net.Listen("tcp", a)
		if err != nil {
			closeAll(ls)
			return nil, fmt.Errorf("listening on %s: %w", a, err)
		}
		ls = append(ls, l)
	}
	return ls, nil
}

// closeAll closes listeners whose errors nobody can act on.
func closeAll(ls []net.Listener) {
	for _, l := range ls {
		l.Close()
	}
}

// randomHex is n random bytes in hex, for names no other run picks.
func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("reading random bytes: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// randomInt is uniform in [lo, hi].
func randomInt(lo, hi int) (int, error) {
	v, err := rand.Int(rand.Reader, big.NewInt(int64(hi-lo+1)))
	if err != nil {
		return 0, fmt.Errorf("reading a random number: %w", err)
	}
	return lo + int(v.Int64()), nil
}
