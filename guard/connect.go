package guard

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"pathgrant/wire"
)

// OpConnect is a confined command's connection through pathgrant's proxy
// to a destination (Destination). It is not among Ops: no check route
// takes it, only the daemon's proxy asks it (Evaluate), and the only
// grant that allows it names that destination exactly.
const OpConnect = wire.OpConnect

// Destination is HOST:PORT in the one spelling grants, requests and the
// person see: the host lowercased without a trailing dot, an IPv6
// literal in brackets and without a zone, the port in decimal 1–65535.
// It refuses anything else: a grant must name exactly what the proxy
// connects to.
func Destination(hostport string) (string, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", fmt.Errorf("destination %q: %w", hostport, err)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
		return "", fmt.Errorf("destination %q: port %q is not 1-65535", hostport, port)
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		// A zone is free text after '%' that netip takes whole: in a
		// request it would be words of the command's choosing beside the
		// address, and it names no other destination (the proxy reaches
		// no link-local address, where alone it would matter).
		if a.Zone() != "" {
			return "", fmt.Errorf("destination %q: an address with a zone (%%%s) is not a destination", hostport, a.Zone())
		}
		return net.JoinHostPort(a.Unmap().String(), port), nil
	}
	if !validHostname(host) {
		return "", fmt.Errorf("destination %q: %q is not a host name or an IP address", hostport, host)
	}
	return host + ":" + port, nil
}

// validHostname reports whether h is a DNS name: dot-separated labels of
// letters, digits, '-' and '_', none empty or longer than 63.
func validHostname(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

// analyzeConnect is the one access of a connection: the destination, in
// its one spelling.
func analyzeConnect(dest string) (analysis, error) {
	d, err := Destination(dest)
	if err != nil {
		return analysis{}, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if d != dest {
		return analysis{}, fmt.Errorf("%w: destination %q is not spelt as %q", ErrBadRequest, dest, d)
	}
	return analysis{accesses: []Access{{Op: OpConnect, Path: d, Requested: dest}}}, nil
}

// judgeConnect allows a connection a grant names exactly; any other the
// person may be asked about: the proxy only asks about a destination the
// device policy leaves to the person, after refusing the machine's own
// addresses itself.
func judgeConnect(g Grants, a *Access) {
	if id := g.Lookup(a.Op, a.Path, false); id != "" {
		a.Grant = id
		a.allow(RuleGrant, "allowed by grant "+id)
		return
	}
	a.Eligible = true
	a.deny(RuleOutside, "is a destination no grant allows; connecting can be approved")
}
