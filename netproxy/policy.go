package netproxy

import (
	"fmt"
	"net/netip"
	"strings"
)

// Mode is the device policy's network mode.
type Mode string

// The modes. An empty Mode is AllowPublic, the default.
const (
	AllowPublic Mode = "allow-public" // default: public destinations allowed, private ones asked, the machine's own refused
	Ask         Mode = "ask"          // every destination not allowed by a pattern is asked
	Off         Mode = "off"          // nothing goes out
	Host        Mode = "host"         // no namespace at all (the proxy is never used in this mode; Judge refuses everything)
)

// Policy is what the device policy says about destinations.
type Policy struct {
	Mode        Mode
	Allow       []string       // host patterns allowed without asking: "example.com" (exact), "*.example.com" (any subdomain, not the apex), an IP literal
	Refuse      []string       // host patterns refused outright (win over Allow)
	AllowRanges []netip.Prefix // private ranges allowed without asking (e.g. 10.20.0.0/16)
}

// Verdict is what Judge decides.
type Verdict int

// The verdicts.
const (
	Refused Verdict = iota
	Allowed
	Asking
)

// String names a verdict for logs.
func (v Verdict) String() string {
	switch v {
	case Refused:
		return "refused"
	case Allowed:
		return "allowed"
	case Asking:
		return "asking"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Judge decides a destination: host as the client named it (lowercased,
// trailing dot dropped, IPv6 without brackets), the addresses it resolved
// to. The addresses are judged first and no pattern overrides them: a name
// that resolves to one public address and one of this machine's is
// refused, so a name cannot be made to point here by a rebinding answer.
// Then the mode, then Refuse, then Allow, then the mode's default. An IP
// literal pattern matches that literal as host; in Refuse it also matches
// a name resolving to it, in Allow a name all of whose addresses Allow
// lists. The string is the one-line reason.
func (p Policy) Judge(host string, addrs []netip.Addr, own func(netip.Addr) bool) (Verdict, string) {
	if len(addrs) == 0 {
		return Refused, host + " resolved to no address"
	}
	var private []netip.Addr
	for _, a := range addrs {
		switch c := Classify(a, own); c {
		case ClassPublic:
		case ClassPrivate:
			private = append(private, a)
		default:
			return Refused, classReason(a, c)
		}
	}
	switch p.Mode {
	case Off:
		return Refused, "the device policy's network mode is off: nothing goes out"
	case Host:
		return Refused, "the device policy's network mode is host: nothing goes through this proxy"
	case "", AllowPublic, Ask:
	default:
		return Refused, fmt.Sprintf("the device policy's network mode %q is unknown", string(p.Mode))
	}
	if pat, ok := refuseMatch(p.Refuse, host, addrs); ok {
		return Refused, fmt.Sprintf("refused by the device policy (refuse = [%q])", pat)
	}
	if pat, ok := allowMatch(p.Allow, host, addrs); ok {
		return Allowed, fmt.Sprintf("allowed by the device policy (allow = [%q])", pat)
	}
	if p.Mode == Ask {
		return Asking, "the device policy asks for every destination: asked"
	}
	for _, a := range private {
		if !inRanges(p.AllowRanges, a) {
			return Asking, a.String() + " is a private address: asked"
		}
	}
	if len(private) > 0 {
		return Allowed, "a private address inside the device policy's allowed ranges"
	}
	return Allowed, "a public address"
}

// JudgeName decides a name (host as Judge takes it, not an IP literal)
// by its spelling alone, before it is resolved: ok is false when only
// its addresses can decide. A mode that lets nothing through, or a
// Refuse pattern naming it, refuses it; in mode ask a name no Allow
// pattern names is asked, unless Allow lists an IP literal, which a
// name resolving to it may be allowed by (Judge). Judge still judges
// the addresses afterwards: loopback and the machine's own are refused
// whatever was decided here.
func (p Policy) JudgeName(host string) (Verdict, string, bool) {
	if _, err := netip.ParseAddr(host); err == nil {
		return Refused, "", false
	}
	switch p.Mode {
	case Off:
		return Refused, "the device policy's network mode is off: nothing goes out", true
	case Host:
		return Refused, "the device policy's network mode is host: nothing goes through this proxy", true
	case "", AllowPublic, Ask:
	default:
		return Refused, fmt.Sprintf("the device policy's network mode %q is unknown", string(p.Mode)), true
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		// loopback by name (RFC 6761): refused without a lookup, and
		// never asked of the person only to be refused afterwards
		return Refused, host + " is a loopback address of this machine (by its name)", true
	}
	for _, pat := range p.Refuse {
		if hostMatches(pat, host) {
			return Refused, fmt.Sprintf("refused by the device policy (refuse = [%q])", pat), true
		}
	}
	if p.Mode != Ask {
		return Refused, "", false
	}
	for _, pat := range p.Allow {
		if _, isAddr := patternAddr(pat); isAddr || hostMatches(pat, host) {
			return Refused, "", false
		}
	}
	return Asking, "the device policy asks for every destination: asked", true
}

// refuseMatch finds the first Refuse pattern naming host or, for an IP
// literal pattern, any of its addresses: refusing an address refuses every
// name for it.
func refuseMatch(patterns []string, host string, addrs []netip.Addr) (string, bool) {
	for _, pat := range patterns {
		if hostMatches(pat, host) {
			return pat, true
		}
		if ip, ok := patternAddr(pat); ok && containsAddr(addrs, ip) {
			return pat, true
		}
	}
	return "", false
}

// allowMatch finds the first Allow pattern naming host, or, when every
// address the name resolved to is an allowed IP literal, the first of
// those: an allowed address is allowed by whatever name reaches it, but
// one allowed address does not carry a name's other addresses.
func allowMatch(patterns []string, host string, addrs []netip.Addr) (string, bool) {
	for _, pat := range patterns {
		if hostMatches(pat, host) {
			return pat, true
		}
	}
	first := ""
	for _, a := range addrs {
		pat, ok := addrPattern(patterns, a)
		if !ok {
			return "", false
		}
		if first == "" {
			first = pat
		}
	}
	return first, first != ""
}

// addrPattern finds the IP literal pattern equal to a.
func addrPattern(patterns []string, a netip.Addr) (string, bool) {
	for _, pat := range patterns {
		if ip, ok := patternAddr(pat); ok && canonicalAddr(ip) == canonicalAddr(a) {
			return pat, true
		}
	}
	return "", false
}

// hostMatches reports whether one pattern names host: the same name, any
// subdomain for "*.name" (never the apex, which a pattern lists on its
// own), the same address for an IP literal.
func hostMatches(pattern, host string) bool {
	pat := canonicalHost(pattern)
	if pat == "" {
		return false
	}
	if ip, ok := patternAddr(pat); ok {
		h, err := netip.ParseAddr(host)
		return err == nil && canonicalAddr(h) == canonicalAddr(ip)
	}
	if suffix, ok := strings.CutPrefix(pat, "*"); ok {
		return strings.HasPrefix(suffix, ".") && len(host) > len(suffix) && strings.HasSuffix(host, suffix)
	}
	return pat == host
}

// patternAddr parses an IP literal pattern.
func patternAddr(pattern string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(canonicalHost(pattern))
	return a, err == nil
}

// containsAddr reports whether addrs holds a, in any of its forms.
func containsAddr(addrs []netip.Addr, a netip.Addr) bool {
	a = canonicalAddr(a)
	for _, b := range addrs {
		if canonicalAddr(b) == a {
			return true
		}
	}
	return false
}

// inRanges reports whether a is inside one of the policy's ranges, a range
// written in IPv4-mapped form counting as its IPv4 range.
func inRanges(ranges []netip.Prefix, a netip.Addr) bool {
	a = canonicalAddr(a)
	for _, r := range ranges {
		if r.Addr().Is4In6() && r.Bits() >= 96 {
			r = netip.PrefixFrom(r.Addr().Unmap(), r.Bits()-96)
		}
		if r.IsValid() && r.Contains(a) {
			return true
		}
	}
	return false
}

// canonicalHost is a host as Judge takes it: lowercased, without a
// trailing dot, an IPv6 literal without brackets.
func canonicalHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimSuffix(h, ".")
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	return h
}
