package netproxy

import (
	"net/netip"
	"strings"
	"testing"
)

// addrs parses a test's addresses.
func addrs(ss ...string) []netip.Addr {
	as := make([]netip.Addr, len(ss))
	for i, s := range ss {
		as[i] = netip.MustParseAddr(s)
	}
	return as
}

// TestJudgeModes: each mode against each kind of destination.
func TestJudgeModes(t *testing.T) {
	own := func(a netip.Addr) bool { return a == netip.MustParseAddr("10.0.0.5") }
	ranges := []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16")}
	dests := []struct {
		name  string
		addrs []netip.Addr
	}{
		{"public", addrs("93.184.216.34")},
		{"private in range", addrs("10.20.1.1")},
		{"private out of range", addrs("10.30.1.1")},
		{"loopback", addrs("127.0.0.1")},
		{"own", addrs("10.0.0.5")},
		{"link-local", addrs("169.254.3.4")},
		{"metadata", addrs("169.254.169.254")},
		{"mixed public and loopback", addrs("93.184.216.34", "127.0.0.1")},
	}
	want := map[Mode][]Verdict{
		AllowPublic: {Allowed, Allowed, Asking, Refused, Refused, Refused, Refused, Refused},
		"":          {Allowed, Allowed, Asking, Refused, Refused, Refused, Refused, Refused},
		Ask:         {Asking, Asking, Asking, Refused, Refused, Refused, Refused, Refused},
		Off:         {Refused, Refused, Refused, Refused, Refused, Refused, Refused, Refused},
		Host:        {Refused, Refused, Refused, Refused, Refused, Refused, Refused, Refused},
		"sideways":  {Refused, Refused, Refused, Refused, Refused, Refused, Refused, Refused},
	}
	for mode, verdicts := range want {
		for i, d := range dests {
			t.Run(string(mode)+"/"+d.name, func(t *testing.T) {
				p := Policy{Mode: mode, AllowRanges: ranges}
				got, reason := p.Judge("dest.example", d.addrs, own)
				if got != verdicts[i] {
					t.Errorf("Judge = %v (%s), want %v", got, reason, verdicts[i])
				}
				if reason == "" || strings.Contains(reason, "\n") {
					t.Errorf("reason %q is not one line", reason)
				}
			})
		}
	}
}

// TestJudgePatterns: the patterns, and what they cannot override.
func TestJudgePatterns(t *testing.T) {
	none := func(netip.Addr) bool { return false }
	pub := addrs("93.184.216.34")
	priv := addrs("10.30.1.1")
	cases := []struct {
		name   string
		policy Policy
		host   string
		addrs  []netip.Addr
		want   Verdict
		reason string // contained in the reason
	}{
		{"exact allow", Policy{Mode: Ask, Allow: []string{"registry.npmjs.org"}}, "registry.npmjs.org", pub, Allowed, `allow = ["registry.npmjs.org"]`},
		{"exact allow, other name", Policy{Mode: Ask, Allow: []string{"registry.npmjs.org"}}, "npmjs.org", pub, Asking, "asked"},
		{"pattern case and trailing dot", Policy{Mode: Ask, Allow: []string{"Registry.NPMjs.org."}}, "registry.npmjs.org", pub, Allowed, "allow"},
		{"wildcard subdomain", Policy{Mode: Ask, Allow: []string{"*.example.com"}}, "a.b.example.com", pub, Allowed, `allow = ["*.example.com"]`},
		{"wildcard not the apex", Policy{Mode: Ask, Allow: []string{"*.example.com"}}, "example.com", pub, Asking, "asked"},
		{"wildcard not a suffix of a label", Policy{Mode: Ask, Allow: []string{"*.example.com"}}, "badexample.com", pub, Asking, "asked"},
		{"wildcard allows a private name", Policy{Allow: []string{"*.corp.example"}}, "git.corp.example", priv, Allowed, "allow"},
		{"refuse beats allow", Policy{Allow: []string{"*.corp"}, Refuse: []string{"*.corp"}}, "x.corp", pub, Refused, `refused by the device policy (refuse = ["*.corp"])`},
		{"refuse a public name", Policy{Refuse: []string{"pastebin.com"}}, "pastebin.com", pub, Refused, "refuse"},
		{"IP literal allow", Policy{Mode: Ask, Allow: []string{"10.30.1.1"}}, "10.30.1.1", priv, Allowed, `allow = ["10.30.1.1"]`},
		{"IP literal allow, a name all of whose addresses it lists", Policy{Mode: Ask, Allow: []string{"10.30.1.1"}}, "build.internal", priv, Allowed, "allow"},
		{"IP literal allow covers one address of two", Policy{Mode: Ask, Allow: []string{"10.30.1.1"}}, "build.internal", addrs("10.30.1.1", "10.30.1.2"), Asking, "asked"},
		{"IPv6 literal allow", Policy{Mode: Ask, Allow: []string{"[fd00::1]"}}, "fd00::1", addrs("fd00::1"), Allowed, "allow"},
		{"IP literal refuse catches a name", Policy{Refuse: []string{"93.184.216.34"}}, "example.com", pub, Refused, "refuse"},
		{"allow cannot reach loopback", Policy{Allow: []string{"localhost"}}, "localhost", addrs("127.0.0.1"), Refused, "loopback"},
		{"allow cannot reach metadata", Policy{Allow: []string{"169.254.169.254"}}, "169.254.169.254", addrs("169.254.169.254"), Refused, "metadata"},
		{"rebinding: public and loopback", Policy{Allow: []string{"evil.example"}}, "evil.example", addrs("93.184.216.34", "127.0.0.1"), Refused, "127.0.0.1 is a loopback"},
		{"private in a mapped range", Policy{AllowRanges: []netip.Prefix{netip.MustParsePrefix("::ffff:10.30.0.0/112")}}, "x", priv, Allowed, "allowed ranges"},
		{"private, public and in range", Policy{AllowRanges: []netip.Prefix{netip.MustParsePrefix("10.30.0.0/16")}}, "x", addrs("10.30.1.1", "93.184.216.34"), Allowed, "allowed ranges"},
		{"private out of range", Policy{}, "x", priv, Asking, "10.30.1.1 is a private address: asked"},
		{"no address", Policy{}, "x", nil, Refused, "resolved to no address"},
		{"empty pattern matches nothing", Policy{Mode: Ask, Allow: []string{""}}, "x", pub, Asking, "asked"},
		{"off beats allow", Policy{Mode: Off, Allow: []string{"x"}}, "x", pub, Refused, "off"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, reason := tc.policy.Judge(tc.host, tc.addrs, none)
			if got != tc.want || !strings.Contains(reason, tc.reason) {
				t.Errorf("Judge(%q, %v) = %v %q, want %v with %q", tc.host, tc.addrs, got, reason, tc.want, tc.reason)
			}
		})
	}
}

// TestJudgeOwnReason: an own address's refusal says so.
func TestJudgeOwnReason(t *testing.T) {
	own := func(a netip.Addr) bool { return a == netip.MustParseAddr("10.0.0.5") }
	_, reason := Policy{}.Judge("10.0.0.5", addrs("10.0.0.5"), own)
	if reason != "10.0.0.5 is this machine's own address" {
		t.Errorf("reason %q", reason)
	}
}

// TestDestinationString: how a refusal names a destination.
func TestDestinationString(t *testing.T) {
	for _, tc := range []struct {
		d    Destination
		want string
	}{
		{Destination{Host: "registry.npmjs.org", Port: 443}, "registry.npmjs.org:443"},
		{Destination{Host: "fd00::1", Port: 22}, "[fd00::1]:22"},
		{Destination{Host: "10.0.0.1", Port: 80}, "10.0.0.1:80"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.d.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}
