package netproxy

import (
	"log/slog"
	"net"
	"net/netip"
	"testing"
)

// TestOwnAddrs: the default Own knows this machine's interface addresses
// and nothing else.
func TestOwnAddrs(t *testing.T) {
	list, err := net.InterfaceAddrs()
	if err != nil || len(list) == 0 {
		t.Skipf("no interface addresses here: %v", err)
	}
	var o ownAddrs
	log := slog.New(slog.DiscardHandler)
	for _, ia := range list {
		ip, ok := ia.(*net.IPNet)
		if !ok {
			continue
		}
		a, ok := netip.AddrFromSlice(ip.IP)
		if !ok {
			continue
		}
		a = a.Unmap()
		t.Run(a.String(), func(t *testing.T) {
			if !o.contains(a, log) {
				t.Errorf("%s is an interface address, and not own", a)
			}
		})
	}
	t.Run("a documentation address", func(t *testing.T) {
		if o.contains(netip.MustParseAddr("192.0.2.77"), log) {
			t.Error("192.0.2.77 counts as own")
		}
	})
}
