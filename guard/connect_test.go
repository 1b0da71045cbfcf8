package guard

import "testing"

// TestDestination: a destination has one spelling, which grants,
// requests and the person see; anything that is not one host and port is
// refused, an address with a zone included (its text after '%' is free:
// it would be words of the command's choosing in the person's request).
func TestDestination(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" refused
	}{
		{"Git.Corp.Example.:443", "git.corp.example:443"},
		{"10.1.2.3:22", "10.1.2.3:22"},
		{"[::ffff:10.1.2.3]:22", "10.1.2.3:22"},
		{"[FD00:0::1]:443", "[fd00::1]:443"},
		{"[fd00::1%eth0]:443", ""},
		{"[fd00::1%allow github.com]:443", ""},
		{"[fe80::1%lo]:22", ""},
		{"example.com:0443", ""},
		{"example.com:0", ""},
		{"exa mple.com:443", ""},
		{"example.com", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Destination(tt.in)
			if tt.want == "" {
				if err == nil {
					t.Errorf("Destination(%q) = %q; want refused", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Destination(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}
