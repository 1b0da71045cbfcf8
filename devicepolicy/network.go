package devicepolicy

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// The values of [network] mode: how confined commands reach the network.
const (
	// NetAllowPublic: public destinations are reached, private ranges
	// are asked, the machine's own addresses are refused.
	NetAllowPublic = "allow-public"
	// NetAsk: every destination no pattern allows becomes a request.
	NetAsk = "ask"
	// NetOff: a network namespace with no way out.
	NetOff = "off"
	// NetHost: no namespace; the command shares the machine's network
	// (doctor reports it as a gap).
	NetHost = "host"
)

// netModes are the modes the file may name.
var netModes = []string{NetAllowPublic, NetAsk, NetOff, NetHost}

// Network is what confined commands may reach over the network.
type Network struct {
	// Mode: "allow-public" (default: public destinations allowed, private ranges asked, the machine's own refused),
	// "ask" (every destination not allowed by a pattern becomes a request), "off" (a namespace with no way out),
	// "host" (no namespace: the command shares the machine's network; doctor shows it as a gap).
	Mode string `toml:"mode" json:"mode"`
	// Allow are host patterns reached without asking: "example.com", "*.example.com", an IP literal.
	Allow []string `toml:"allow" json:"allow"`
	// Refuse are host patterns never reached (they win over Allow).
	Refuse []string `toml:"refuse" json:"refuse"`
	// AllowRanges are private address ranges (CIDR) reached without asking, e.g. a company's 10.20.0.0/16.
	AllowRanges []string `toml:"allow_ranges" json:"allow_ranges"`
}

// neverReached are the addresses no setting opens, whatever the file
// says: they are the machine's own and its link's, where services that
// trust local callers listen (an X server, Docker's API, a database, a
// cloud's metadata service handing out credentials). IPv4-mapped IPv6
// forms are listed too: they reach the same places.
var neverReached = []struct {
	prefix netip.Prefix
	what   string
}{
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("::ffff:127.0.0.0/104"), "loopback"},
	{netip.MustParsePrefix("0.0.0.0/8"), "this host (0.0.0.0 reaches the machine's own)"},
	{netip.MustParsePrefix("::/128"), "this host (:: reaches the machine's own)"},
	{netip.MustParsePrefix("169.254.169.254/32"), "the cloud metadata address"},
	{netip.MustParsePrefix("fd00:ec2::254/128"), "the cloud metadata address"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("::ffff:169.254.0.0/112"), "link-local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
}

// neverNote ends every error about an address no setting opens.
const neverNote = "loopback, link-local and the metadata address are refused outright by design, whatever the file says"

// Prefixes are AllowRanges parsed. The file is already checked, so a
// range that does not parse (only in a Policy built by hand) is skipped.
func (n Network) Prefixes() []netip.Prefix {
	out := make([]netip.Prefix, 0, len(n.AllowRanges))
	for _, r := range n.AllowRanges {
		if p, err := netip.ParsePrefix(r); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// check refuses an unknown mode, a pattern that is not a host name, a
// *. wildcard of one or an IP literal, and a range that is not a masked
// prefix or covers an address no setting opens. at says where a value
// sits in the file.
func (n Network) check(at func(value string) string) error {
	if !slices.Contains(netModes, n.Mode) {
		where := at(n.Mode)
		if n.Mode == "" {
			where = at("mode")
		}
		return fmt.Errorf("%snetwork.mode: %q is none of %q", where, n.Mode, netModes)
	}
	for _, f := range []struct {
		name     string
		patterns []string
	}{{"network.allow", n.Allow}, {"network.refuse", n.Refuse}} {
		for _, pat := range f.patterns {
			if err := checkPattern(pat, f.name == "network.allow"); err != nil {
				return fmt.Errorf("%s%s: %q: %w", at(pat), f.name, pat, err)
			}
		}
	}
	for _, r := range n.AllowRanges {
		if err := checkRange(r); err != nil {
			return fmt.Errorf("%snetwork.allow_ranges: %w", at(r), err)
		}
	}
	return nil
}

// checkPattern accepts a host name, "*." and a host name, or an IP
// literal. allowing says the pattern opens a destination: an address no
// setting opens (or localhost, which names loopback) is then refused,
// since it would do nothing.
func checkPattern(pat string, allowing bool) error {
	if pat == "" {
		return fmt.Errorf("empty: want a host name, *.name or an IP address")
	}
	if a, err := netip.ParseAddr(pat); err == nil {
		if a.Zone() != "" {
			return fmt.Errorf("an address with a zone: write the address alone")
		}
		if what := neverWhat(netip.PrefixFrom(a, a.BitLen())); allowing && what != "" {
			return fmt.Errorf("%s is never reached: %s", what, neverNote)
		}
		return nil
	}
	name, wild := strings.CutPrefix(strings.ToLower(pat), "*.")
	if err := checkHostName(name); err != nil {
		if wild {
			return fmt.Errorf("after *.: %w", err)
		}
		return err
	}
	if allowing && (strings.TrimSuffix(name, ".") == "localhost" || strings.HasSuffix(strings.TrimSuffix(name, "."), ".localhost")) {
		return fmt.Errorf("localhost names loopback, which is never reached: %s", neverNote)
	}
	return nil
}

// checkHostName accepts an ASCII host name: dot-separated labels of
// letters, digits, hyphens and underscores, none empty or longer than
// 63, no hyphen at either end, at most one final dot, and a last label
// that is not all digits (that would be an IP address mistyped).
func checkHostName(name string) error {
	switch {
	case strings.Contains(name, "://"):
		return fmt.Errorf("a URL: write the host name alone, with no scheme")
	case strings.ContainsAny(name, "[]:"):
		return fmt.Errorf("a port or a bracketed address: write the host name or IP address alone, with no port")
	case strings.Contains(name, "*"):
		return fmt.Errorf("* is allowed only as a whole first label (*.example.com)")
	}
	trimmed := strings.TrimSuffix(name, ".")
	if trimmed == "" || len(trimmed) > 253 {
		return fmt.Errorf("not a host name")
	}
	labels := strings.Split(trimmed, ".")
	for _, l := range labels {
		if err := checkLabel(l); err != nil {
			return err
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return fmt.Errorf("not a host name, nor an IP address")
	}
	return nil
}

// checkLabel accepts one label of a host name.
func checkLabel(l string) error {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return fmt.Errorf("not a host name: label %q", l)
	}
	for _, r := range l {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("not a host name: %q in label %q (a name in another script goes in its xn-- form)", r, l)
		}
	}
	return nil
}

// checkRange accepts a masked prefix, not /0, that covers no address no
// setting opens.
func checkRange(r string) error {
	p, err := netip.ParsePrefix(r)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not an address range (CIDR, e.g. 10.20.0.0/16)", r)
	case p.Addr().Zone() != "":
		return fmt.Errorf("%s: an address with a zone: write the range alone", r)
	case p.Bits() == 0:
		return fmt.Errorf("allow_ranges = %s would allow every private address; use mode", r)
	case p.Masked() != p:
		return fmt.Errorf("%s has host bits set: write %s", r, p.Masked())
	}
	if what := neverWhat(p); what != "" {
		return fmt.Errorf("%s covers %s: %s", r, what, neverNote)
	}
	return nil
}

// neverWhat names what of neverReached p overlaps, or "": the narrowest
// entry holding all of p (169.254.169.254 is the metadata address,
// 169.254.0.0/16 link-local), else the first p overlaps.
func neverWhat(p netip.Prefix) string {
	what, bits := "", -1
	for _, n := range neverReached {
		if n.prefix.Bits() <= p.Bits() && n.prefix.Contains(p.Addr()) && n.prefix.Bits() > bits {
			what, bits = n.what, n.prefix.Bits()
		}
	}
	if what != "" {
		return what
	}
	for _, n := range neverReached {
		if p.Overlaps(n.prefix) {
			return n.what
		}
	}
	return ""
}

// normalize writes host patterns as the proxy compares them: lower
// case, without a final dot. Run after check, so errors quote the file.
func (n *Network) normalize() {
	for _, f := range []*[]string{&n.Allow, &n.Refuse} {
		for i, pat := range *f {
			(*f)[i] = strings.TrimSuffix(strings.ToLower(pat), ".")
		}
	}
}
