package devicepolicy

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// TestParseNetwork: the [network] table, in TOML and JSON; a bad mode,
// pattern or range refuses the whole file, naming the line, and the
// machine's own, link-local and metadata addresses are never opened.
func TestParseNetwork(t *testing.T) {
	tests := []struct {
		name, file, data string
		check            func(Network) bool
		wantErr          string // in the error; "" for none
	}{
		{"left out: allow-public", "policy.toml", "confinement = true\n",
			func(n Network) bool { return n.Mode == NetAllowPublic }, ""},
		{"a table without mode keeps allow-public", "policy.toml", "[network]\nrefuse = [\"pastebin.com\"]\n",
			func(n Network) bool {
				return n.Mode == NetAllowPublic && slices.Equal(n.Refuse, []string{"pastebin.com"})
			}, ""},
		{"every field", "policy.toml", `
[network]
mode = "ask"
allow = ["github.com", "*.githubusercontent.com", "192.0.2.7", "2001:db8::7"]
refuse = ["gist.github.com"]
allow_ranges = ["10.20.0.0/16", "fd12:3456::/32"]
`, func(n Network) bool {
			return n.Mode == NetAsk && slices.Equal(n.Allow, []string{"github.com", "*.githubusercontent.com", "192.0.2.7", "2001:db8::7"}) &&
				slices.Equal(n.Refuse, []string{"gist.github.com"}) && slices.Equal(n.AllowRanges, []string{"10.20.0.0/16", "fd12:3456::/32"})
		}, ""},
		{"mode off", "policy.toml", "[network]\nmode = \"off\"\n", func(n Network) bool { return n.Mode == NetOff }, ""},
		{"mode host", "policy.toml", "[network]\nmode = \"host\"\n", func(n Network) bool { return n.Mode == NetHost }, ""},
		{"json", "policy.json", `{"network": {"mode": "ask", "allow_ranges": ["172.16.4.0/24"]}}`,
			func(n Network) bool {
				return n.Mode == NetAsk && slices.Equal(n.AllowRanges, []string{"172.16.4.0/24"})
			}, ""},
		{"json without mode keeps allow-public", "policy.json", `{"network": {"allow": ["example.com"]}}`,
			func(n Network) bool {
				return n.Mode == NetAllowPublic && slices.Equal(n.Allow, []string{"example.com"})
			}, ""},
		{"patterns are lower-cased, the final dot dropped", "policy.toml", "[network]\nallow = [\"Git.Example.COM.\", \"*.CDN.example.com\"]\n",
			func(n Network) bool { return slices.Equal(n.Allow, []string{"git.example.com", "*.cdn.example.com"}) }, ""},
		{"localhost may be refused", "policy.toml", "[network]\nrefuse = [\"localhost\", \"127.0.0.1\"]\n",
			func(n Network) bool { return len(n.Refuse) == 2 }, ""},
		{"unknown mode", "policy.toml", "[network]\nmode = \"open\"\n", nil, `line 2: network.mode: "open" is none of`},
		{"empty mode", "policy.toml", "[network]\nmode = \"\"\n", nil, `line 2: network.mode: "" is none of`},
		{"mode in upper case", "policy.json", "{\"network\": {\n\"mode\": \"Ask\"}}", nil, `line 2: network.mode: "Ask" is none of`},
		{"unknown field in the table", "policy.toml", "[network]\nmode = \"ask\"\nallowed = []\n", nil, `line 3: unknown field "network.allowed"`},
		{"unknown json field in the table", "policy.json", "{\"network\": {\n\"ranges\": []}}", nil, `line 2: unknown field "ranges"`},
		{"a URL", "policy.toml", "[network]\nallow = [\"https://example.com\"]\n", nil, `line 2: network.allow: "https://example.com": a URL`},
		{"a port", "policy.toml", "[network]\nallow = [\"example.com:443\"]\n", nil, "no port"},
		{"an address with a port", "policy.toml", "[network]\nallow = [\"[2001:db8::1]:22\"]\n", nil, "no port"},
		{"a star inside", "policy.toml", "[network]\nallow = [\"git*.example.com\"]\n", nil, "* is allowed only as a whole first label"},
		{"a star alone", "policy.toml", "[network]\nallow = [\"*\"]\n", nil, "* is allowed only"},
		{"a star after the first label", "policy.toml", "[network]\nrefuse = [\"a.*.example.com\"]\n", nil, `network.refuse: "a.*.example.com"`},
		{"*. and nothing", "policy.toml", "[network]\nallow = [\"*.\"]\n", nil, "after *.: not a host name"},
		{"empty pattern", "policy.toml", "[network]\nrefuse = [\"\"]\n", nil, `network.refuse: "": empty`},
		{"an empty label", "policy.toml", "[network]\nallow = [\"a..b\"]\n", nil, `label ""`},
		{"a space", "policy.toml", "[network]\nallow = [\"exa mple.com\"]\n", nil, "not a host name"},
		{"not ASCII", "policy.toml", "[network]\nallow = [\"bücher.example\"]\n", nil, "xn-- form"},
		{"a mistyped address", "policy.toml", "[network]\nallow = [\"10.0.0\"]\n", nil, "nor an IP address"},
		{"a zone", "policy.toml", "[network]\nallow = [\"fe80::1%eth0\"]\n", nil, "zone"},
		{"allow loopback", "policy.toml", "[network]\nallow = [\"127.0.0.1\"]\n", nil, "line 2: network.allow: \"127.0.0.1\": loopback is never reached: loopback, link-local and the metadata address are refused outright by design"},
		{"allow localhost", "policy.toml", "[network]\nallow = [\"localhost\"]\n", nil, "refused outright by design"},
		{"allow the metadata address", "policy.toml", "[network]\nallow = [\"169.254.169.254\"]\n", nil, "the cloud metadata address is never reached"},
		{"allow a mapped loopback", "policy.toml", "[network]\nallow = [\"::ffff:127.0.0.1\"]\n", nil, "loopback is never reached"},
		{"not a range", "policy.toml", "[network]\nallow_ranges = [\"10.20.0.0\"]\n", nil, `line 2: network.allow_ranges: "10.20.0.0" is not an address range`},
		{"host bits set", "policy.toml", "[network]\nallow_ranges = [\"10.20.3.0/16\"]\n", nil, "10.20.3.0/16 has host bits set: write 10.20.0.0/16"},
		{"every address", "policy.toml", "[network]\nallow_ranges = [\"0.0.0.0/0\"]\n", nil, "allow_ranges = 0.0.0.0/0 would allow every private address; use mode"},
		{"every IPv6 address", "policy.toml", "[network]\nallow_ranges = [\"::/0\"]\n", nil, "would allow every private address"},
		{"a range of loopback", "policy.toml", "# mine\n[network]\nallow_ranges = [\"127.0.0.0/8\"]\n", nil, "line 3: network.allow_ranges: 127.0.0.0/8 covers loopback: loopback, link-local and the metadata address are refused outright by design, whatever the file says"},
		{"a range holding loopback", "policy.toml", "[network]\nallow_ranges = [\"0.0.0.0/1\"]\n", nil, "covers"},
		{"link-local", "policy.toml", "[network]\nallow_ranges = [\"169.254.0.0/16\"]\n", nil, "169.254.0.0/16 covers link-local"},
		{"IPv6 link-local", "policy.toml", "[network]\nallow_ranges = [\"fe80::/64\"]\n", nil, "covers link-local"},
		{"the metadata address", "policy.toml", "[network]\nallow_ranges = [\"169.254.169.254/32\"]\n", nil, "covers the cloud metadata address"},
		{"IPv6 loopback", "policy.json", "{\"network\": {\"allow_ranges\": [\"::1/128\"]}}", nil, "::1/128 covers loopback"},
		{"a range in a string of the wrong type", "policy.toml", "[network]\nallow_ranges = \"10.0.0.0/8\"\n", nil, "line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.file, []byte(tt.data), testEnv)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want one line containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(p.Network) {
				t.Errorf("network %+v", p.Network)
			}
		})
	}
}

// TestPrefixes: the ranges as the proxy matches them; one that does not
// parse (a Policy built by hand, never a loaded file) is left out.
func TestPrefixes(t *testing.T) {
	tests := []struct {
		name   string
		ranges []string
		want   []netip.Prefix
	}{
		{"none", nil, []netip.Prefix{}},
		{"both families", []string{"10.20.0.0/16", "fd12:3456::/32"},
			[]netip.Prefix{netip.MustParsePrefix("10.20.0.0/16"), netip.MustParsePrefix("fd12:3456::/32")}},
		{"one that does not parse", []string{"10.20.0.0/16", "nonsense"}, []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Network{AllowRanges: tt.ranges}).Prefixes(); !slices.Equal(got, tt.want) {
				t.Errorf("Prefixes() = %v, want %v", got, tt.want)
			}
		})
	}
}
