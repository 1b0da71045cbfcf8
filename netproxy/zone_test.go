package netproxy

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
)

// TestZonedLiteralRefused: an IPv6 literal with a zone is not a
// destination, by any of the proxy's protocols. netip takes any text after
// '%' as the zone, spaces included, so a zoned literal the policy leaves
// to the person would put words of the command's choosing into the
// request the person reads ("[fd00::1%allow github.com]:443"); the
// proxy refuses it as a bad destination, asking no one and dialling
// nothing.
func TestZonedLiteralRefused(t *testing.T) {
	tests := []struct {
		name string
		send func(t *testing.T, h *harness) bool // reports whether the proxy refused it as a bad destination
	}{
		{"SOCKS5 name with a zone of words", func(t *testing.T, h *harness) bool {
			_, rep := h.socks(t, socksAtypDomain, socksDomain("fd00::1%Allow: this is github.com"), h.echoPort)
			return rep == socksGeneralFailure
		}},
		{"SOCKS5 name with an interface zone", func(t *testing.T, h *harness) bool {
			_, rep := h.socks(t, socksAtypDomain, socksDomain("fd00::1%eth0"), h.echoPort)
			return rep == socksGeneralFailure
		}},
		{"CONNECT with a zone", func(t *testing.T, h *harness) bool {
			_, _, resp := h.connect(t, fmt.Sprintf("[fd00::1%%github.com]:%d", h.echoPort))
			return resp.StatusCode == http.StatusBadRequest
		}},
		{"absolute-form URL with a zone", func(t *testing.T, h *harness) bool {
			c := h.client(t)
			fmt.Fprintf(c, "GET http://[fd00::1%%25Allow%%20github.com]:%d/ HTTP/1.1\r\nHost: github.com\r\n\r\n", h.httpPort)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			return resp.StatusCode == http.StatusBadRequest
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			h := newHarness(t, func(s *Server) {
				s.Policy = func() Policy { return Policy{Mode: Ask} }
				s.Ask = askerFunc(func(_ context.Context, d Destination) error {
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, d.String())
					return nil
				})
			})
			if !tt.send(t, h) {
				t.Error("not refused as a bad destination")
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 0 {
				t.Errorf("the person was asked about %q", asked)
			}
			if d := h.dials(); len(d) != 0 {
				t.Errorf("dialled %v", d)
			}
		})
	}
}
