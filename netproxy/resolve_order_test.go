package netproxy

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestNameDecidedBeforeResolved: resolving a name is a query that leaves
// the machine, with words of the command's choosing in it (data a
// confined command could smuggle out to a name server it controls). A
// name the policy decides by its spelling is decided before any
// resolution: refused by a mode that lets nothing out or by a Refuse
// pattern without being resolved; in mode ask, asked first and resolved
// only once the person allowed it, its addresses then still judged
// (loopback refused) and the person asked once. What only addresses can
// decide is resolved first, as before.
func TestNameDecidedBeforeResolved(t *testing.T) {
	tests := []struct {
		name     string
		policy   Policy
		host     string
		answer   error  // the person's
		status   int    // the CONNECT's answer
		asked    int    // questions to the person
		resolved bool   // the name was resolved
		reason   string // in the refusal, when refused
	}{
		{"mode off: refused unresolved", Policy{Mode: Off}, "secret-1.exfil.test", nil, http.StatusForbidden, 0, false, "mode is off"},
		{"mode host: refused unresolved", Policy{Mode: Host}, "secret-2.exfil.test", nil, http.StatusForbidden, 0, false, "mode is host"},
		{"a Refuse pattern: refused unresolved", Policy{Mode: AllowPublic, Refuse: []string{"*.exfil.test"}}, "secret-3.exfil.test", nil,
			http.StatusForbidden, 0, false, "refuse ="},
		{"mode ask, denied: never resolved", Policy{Mode: Ask}, "secret-4.exfil.test", errNo, http.StatusForbidden, 1, false, errNo.Error()},
		{"mode ask, allowed: resolved after, asked once", Policy{Mode: Ask}, "upstream.test", nil, http.StatusOK, 1, true, ""},
		{"mode ask, allowed, but loopback: refused", Policy{Mode: Ask}, "mixed.test", nil, http.StatusForbidden, 1, true, "loopback"},
		{"mode ask, a name Allow names: resolved, not asked", Policy{Mode: Ask, Allow: []string{"upstream.test"}}, "upstream.test", nil,
			http.StatusOK, 0, true, ""},
		{"mode ask, Allow lists an address: resolved first, to be judged by it", Policy{Mode: Ask, Allow: []string{fakePublic4.String()}},
			"upstream.test", nil, http.StatusOK, 0, true, ""},
		{"allow-public: a name only its addresses decide is resolved", Policy{Mode: AllowPublic}, "private.test", errNo,
			http.StatusForbidden, 1, true, errNo.Error()},
		{"mode ask, localhost: refused by name, never asked", Policy{Mode: Ask}, "localhost", nil, http.StatusForbidden, 0, false, "loopback"},
		{"mode ask, a .localhost name: refused by name", Policy{Mode: Ask}, "app.localhost", nil, http.StatusForbidden, 0, false, "loopback"},
		{"allow-public, localhost even if allowed: refused by name", Policy{Mode: AllowPublic, Allow: []string{"localhost"}}, "localhost", nil,
			http.StatusForbidden, 0, false, "loopback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			asked := 0
			h := newHarness(t, func(s *Server) {
				s.Policy = func() Policy { return tt.policy }
				s.Ask = askerFunc(func(context.Context, Destination) error {
					mu.Lock()
					defer mu.Unlock()
					asked++
					return tt.answer
				})
			})
			_, _, resp := h.connect(t, fmt.Sprintf("%s:%d", tt.host, h.echoPort))
			if resp.StatusCode != tt.status {
				t.Errorf("status %s, want %d", resp.Status, tt.status)
			}
			if tt.reason != "" && !strings.Contains(resp.Status, tt.reason) {
				t.Errorf("status %q does not say %q", resp.Status, tt.reason)
			}
			mu.Lock()
			defer mu.Unlock()
			if asked != tt.asked {
				t.Errorf("asked %d times, want %d", asked, tt.asked)
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			if got := slices.Contains(h.resolved, tt.host); got != tt.resolved {
				t.Errorf("resolved %v (%q), want %v", got, h.resolved, tt.resolved)
			}
		})
	}
}
