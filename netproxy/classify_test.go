package netproxy

import (
	"net/netip"
	"testing"
)

// TestClassify: every class, in IPv4, IPv6 and the IPv6 forms that carry
// an IPv4 address.
func TestClassify(t *testing.T) {
	own := func(a netip.Addr) bool {
		return a == netip.MustParseAddr("10.0.0.5") || a == netip.MustParseAddr("2a01:4f8::5") || a == netip.MustParseAddr("93.184.216.5")
	}
	cases := []struct {
		addr string
		want Class
	}{
		{"93.184.216.34", ClassPublic},
		{"2606:2800:220:1:248:1893:25c8:1946", ClassPublic},
		{"::ffff:93.184.216.34", ClassPublic},
		{"64:ff9b::93.184.216.34", ClassPublic}, // NAT64 of a public address

		{"10.1.2.3", ClassPrivate},
		{"172.16.0.1", ClassPrivate},
		{"192.168.1.1", ClassPrivate},
		{"100.64.0.1", ClassPrivate},
		{"198.18.0.1", ClassPrivate},
		{"fd12:3456::1", ClassPrivate},
		{"::ffff:192.168.1.1", ClassPrivate},

		{"127.0.0.1", ClassLoopback},
		{"127.1.2.3", ClassLoopback},
		{"::1", ClassLoopback},
		{"::ffff:127.0.0.1", ClassLoopback},
		{"64:ff9b::127.0.0.1", ClassLoopback},
		{"2002:7f00:1::1", ClassLoopback}, // 6to4 of 127.0.0.1

		{"10.0.0.5", ClassOwn},
		{"93.184.216.5", ClassOwn}, // a public address of this machine
		{"2a01:4f8::5", ClassOwn},
		{"::ffff:10.0.0.5", ClassOwn},

		{"169.254.1.1", ClassLinkLocal},
		{"fe80::1", ClassLinkLocal},
		{"fe80::1%eth0", ClassLinkLocal},
		{"::ffff:169.254.1.1", ClassLinkLocal},

		{"169.254.169.254", ClassMetadata},
		{"fd00:ec2::254", ClassMetadata},
		{"fd00:ec2::23", ClassMetadata}, // not a private address to ask about: it hands out credentials
		{"100.100.100.200", ClassMetadata},
		{"168.63.129.16", ClassMetadata},
		{"::ffff:169.254.169.254", ClassMetadata},
		{"64:ff9b::169.254.169.254", ClassMetadata},

		{"0.0.0.0", ClassSpecial},
		{"0.1.2.3", ClassSpecial},
		{"255.255.255.255", ClassSpecial},
		{"240.0.0.1", ClassSpecial},
		{"224.0.0.1", ClassSpecial},
		{"192.0.2.1", ClassSpecial},
		{"198.51.100.1", ClassSpecial},
		{"203.0.113.1", ClassSpecial},
		{"::", ClassSpecial},
		{"ff02::1", ClassSpecial},
		{"2001:db8::1", ClassSpecial},
		{"3fff::1", ClassSpecial},
		{"2001::1", ClassSpecial}, // Teredo
		{"::1.2.3.4", ClassSpecial},
		{"4000::1", ClassSpecial}, // outside global unicast
		{"::ffff:0.0.0.0", ClassSpecial},
		{"::ffff:224.0.0.1", ClassSpecial},
		{"2002:c000:201::1", ClassSpecial}, // 6to4 of 192.0.2.1
	}
	for _, tc := range cases {
		t.Run(tc.addr, func(t *testing.T) {
			if got := Classify(netip.MustParseAddr(tc.addr), own); got != tc.want {
				t.Errorf("Classify(%s) = %s, want %s", tc.addr, got, tc.want)
			}
		})
	}
	t.Run("nil own", func(t *testing.T) {
		if got := Classify(netip.MustParseAddr("10.0.0.5"), nil); got != ClassPrivate {
			t.Errorf("Classify(10.0.0.5, nil) = %s, want private", got)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		if got := Classify(netip.Addr{}, nil); got != ClassSpecial {
			t.Errorf("Classify(zero) = %s, want special", got)
		}
	})
}
