package netproxy

import (
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"time"
)

// ownRefresh is how long a reading of the interface addresses stands: a
// connection costs no system call, and an address that appears (a VPN
// coming up) is this machine's within a second.
const ownRefresh = time.Second

// ownAddrs is this machine's interface addresses, re-read at most once per
// ownRefresh.
type ownAddrs struct {
	mu    sync.Mutex
	at    time.Time
	read  bool // at least one reading succeeded
	addrs map[netip.Addr]bool
}

// contains reports whether a is one of this machine's addresses. Until the
// interfaces have been read once every address counts as this machine's:
// not knowing which addresses are its own, the proxy reaches none.
func (o *ownAddrs) contains(a netip.Addr, log *slog.Logger) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if time.Since(o.at) >= ownRefresh {
		o.at = time.Now()
		addrs, err := interfaceAddrs()
		if err != nil {
			log.Warn("netproxy: reading this machine's addresses", "err", err, "kept_last", o.read)
		} else {
			o.addrs, o.read = addrs, true
		}
	}
	return !o.read || o.addrs[canonicalAddr(a)]
}

// interfaceAddrs reads every interface's addresses.
func interfaceAddrs() (map[netip.Addr]bool, error) {
	list, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	addrs := make(map[netip.Addr]bool, len(list))
	for _, ia := range list {
		var ip net.IP
		switch v := ia.(type) {
		case *net.IPNet:
			ip = v.IP
		case *net.IPAddr:
			ip = v.IP
		}
		if a, ok := netip.AddrFromSlice(ip); ok {
			addrs[canonicalAddr(a)] = true
		}
	}
	return addrs, nil
}
