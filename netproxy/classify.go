package netproxy

import (
	"net/netip"
	"slices"
)

// Class is what an address is to this machine.
type Class string

// The classes. Only public and private destinations can ever be reached:
// the others are this machine, its neighbours' link, its cloud's metadata
// service, or addresses no connection should go to.
const (
	ClassPublic    Class = "public"
	ClassPrivate   Class = "private"    // RFC 1918, 100.64.0.0/10 (CGNAT), fc00::/7 (ULA), 198.18.0.0/15 benchmarking
	ClassLoopback  Class = "loopback"   // 127/8, ::1, and IPv4-mapped forms
	ClassOwn       Class = "own"        // one of this machine's interface addresses
	ClassLinkLocal Class = "link-local" // 169.254/16, fe80::/10
	ClassMetadata  Class = "metadata"   // 169.254.169.254, fd00:ec2::254, fd00:ec2::23, 100.100.100.200, 168.63.129.16 (cloud metadata, credential and wire servers)
	ClassSpecial   Class = "special"    // unspecified, multicast, broadcast, 0.0.0.0/8, reserved, documentation ranges; IPv4-mapped/NAT64/6to4 forms are unmapped first
)

// metadataAddrs are the cloud metadata and wire servers: a confined
// command reaching one could read the machine's cloud credentials.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack, …
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
	netip.MustParseAddr("fd00:ec2::23"),    // AWS EKS Pod Identity Agent over IPv6 (a pod's credentials); its IPv4 169.254.170.23 is link-local
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("168.63.129.16"),   // Azure wire server
}

// specialRanges are the ranges no connection through the proxy may go to:
// nothing there is a public service, and several reach this machine or its
// link in ways the loopback and own checks would not see.
var specialRanges = prefixes(
	"0.0.0.0/8",       // "this network"; 0.0.0.0 reaches this machine
	"192.0.0.0/24",    // IETF protocol assignments
	"192.0.2.0/24",    // documentation (TEST-NET-1)
	"198.51.100.0/24", // documentation (TEST-NET-2)
	"203.0.113.0/24",  // documentation (TEST-NET-3)
	"192.88.99.0/24",  // deprecated 6to4 relay anycast
	"224.0.0.0/4",     // multicast
	"240.0.0.0/4",     // reserved, and the broadcast address
	"::/96",           // unspecified and the deprecated IPv4-compatible form
	"100::/64",        // discard only
	"2001::/23",       // IETF protocol assignments (Teredo, ORCHID, benchmarking)
	"2001:db8::/32",   // documentation
	"3fff::/20",       // documentation
	"fec0::/10",       // deprecated site-local
	"ff00::/8",        // multicast
)

// privateRanges are other networks' private addresses: reachable from
// here, but not public, so the default mode asks before going there.
var privateRanges = prefixes(
	"10.0.0.0/8",
	"172.16.0.0/12",
	"192.168.0.0/16",
	"100.64.0.0/10", // CGNAT, and tailnets
	"198.18.0.0/15", // benchmarking, used by some VPNs
	"fc00::/7",      // unique local
)

// globalUnicast6 is IPv6's global unicast space; the rest is reserved.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// Embedding forms: an IPv6 address that carries an IPv4 one reaches that
// IPv4 address through a translator, so it is judged as that address.
var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour      = netip.MustParsePrefix("2002::/16")
)

// Classify says what a is to this machine; own reports this machine's
// interface addresses (nil: none). IPv4-mapped, NAT64 and 6to4 forms are
// classified as the IPv4 address they carry, and a metadata address is
// metadata before it is link-local, so its reason names what it is.
func Classify(a netip.Addr, own func(netip.Addr) bool) Class {
	a = canonicalAddr(a)
	switch {
	case !a.IsValid():
		return ClassSpecial
	case a.IsLoopback():
		return ClassLoopback
	case slices.Contains(metadataAddrs, a):
		return ClassMetadata
	case a.IsLinkLocalUnicast():
		return ClassLinkLocal
	case own != nil && own(a):
		return ClassOwn
	case a.IsUnspecified(), a.IsMulticast(), inAny(specialRanges, a):
		return ClassSpecial
	case inAny(privateRanges, a):
		return ClassPrivate
	case a.Is6() && !globalUnicast6.Contains(a):
		return ClassSpecial
	}
	return ClassPublic
}

// canonicalAddr is the address a connection to a really reaches: the IPv4
// address an IPv4-mapped, NAT64 or 6to4 form carries, without a zone.
func canonicalAddr(a netip.Addr) netip.Addr {
	a = a.Unmap().WithZone("")
	if !a.Is6() {
		return a
	}
	b := a.As16()
	switch {
	case nat64WellKnown.Contains(a), nat64Local.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16]))
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6]))
	}
	return a
}

// inAny reports whether a is inside one of ps.
func inAny(ps []netip.Prefix, a netip.Addr) bool {
	return slices.ContainsFunc(ps, func(p netip.Prefix) bool { return p.Contains(a) })
}

// prefixes parses a fixed table; a typo in it is a bug found at start-up.
func prefixes(ss ...string) []netip.Prefix {
	ps := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		ps[i] = netip.MustParsePrefix(s)
	}
	return ps
}

// classReason is the one line a refusal by class reads.
func classReason(a netip.Addr, c Class) string {
	switch c {
	case ClassLoopback:
		return a.String() + " is a loopback address of this machine"
	case ClassOwn:
		return a.String() + " is this machine's own address"
	case ClassLinkLocal:
		return a.String() + " is a link-local address"
	case ClassMetadata:
		return a.String() + " is a cloud metadata service"
	}
	return a.String() + " is a special-purpose address (unspecified, multicast, broadcast, reserved or documentation)"
}
