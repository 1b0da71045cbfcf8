package seatbelt

import "testing"

// TestSystemPathsNeedNoEscaping: the system rules write their paths as
// they are (filters): each must be one quote would leave alone.
func TestSystemPathsNeedNoEscaping(t *testing.T) {
	for _, p := range systemPaths() {
		if q, err := quote(p); err != nil || q != `"`+p+`"` {
			t.Errorf("system path %q: quoted %s, %v", p, q, err)
		}
	}
}
