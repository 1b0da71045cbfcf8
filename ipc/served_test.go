package ipc

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"pathgrant/sandbox/heldfs"
)

// heldServer records what the engine registers with the held-open file
// system.
type heldServer struct {
	mu         sync.Mutex
	registered map[string]heldfs.Command
	gone       []string
}

func (h *heldServer) Register(token string, c heldfs.Command) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.registered[token] = c
	return nil
}

// Unregister of a token not registered does nothing, as with the file
// system.
func (h *heldServer) Unregister(token string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.registered[token]; ok {
		h.gone = append(h.gone, token)
	}
}

func (h *heldServer) command(token string) (heldfs.Command, bool, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.registered[token]
	return c, ok, slices.Contains(h.gone, token)
}

// TestServedCommand: a command whose roots the file system serves is
// registered before its prepared sandbox is answered (its front end the
// holder, the session's asks through the engine), says its refusals at
// its report and is unregistered then; a refusal line of its stderr that
// names a path the file system already refused is not explained again,
// nor raised as a request.
func TestServedCommand(t *testing.T) {
	held := &heldServer{registered: map[string]heldfs.Command{}}
	ce := newCapEnv(t, func(c *Config) { c.Held = held })
	ce.launcher.served = []string{ce.dl}
	const command = "python3 read.py"
	p, st := ce.prepare(t, ce.hookCheck(t, command).Exec.Capability, command, "")
	if st != http.StatusOK || p.Hold != nil {
		t.Fatalf("prepare: %d, hold %+v: want no seccomp hold", st, p.Hold)
	}
	c, ok, gone := held.command("token-1")
	if !ok || gone || c.Holder.PID == 0 || c.Ask == nil || c.Say == nil || !slices.Equal(c.Roots, []string{ce.dl}) {
		t.Fatalf("registered %+v (ok %v, gone %v): want the command's roots, its front end the holder", c, ok, gone)
	}
	refused := ce.dl + "/report.csv"
	c.Say(refused, "pathgrant: "+refused+": the read was held for approval and refused: denied")
	lines, st := ce.report(t, p.Ticket, command, "cat: "+refused+": Permission denied", "cat: "+ce.dl+"/other.csv: Permission denied")
	if st != http.StatusOK {
		t.Fatalf("report: %d", st)
	}
	if _, _, gone := held.command("token-1"); !gone {
		t.Errorf("the command's token is still served after its report")
	}
	joined := strings.Join(lines, "\n")
	if strings.Count(joined, "report.csv") != 1 || !strings.Contains(joined, "held for approval and refused") || !strings.Contains(joined, "other.csv") {
		t.Errorf("report %q: want the file system's line for report.csv once, and other.csv explained", lines)
	}
	for _, r := range ce.srv.Engine().Pending() {
		if r.Path == refused {
			t.Errorf("a request was raised again for %s", refused)
		}
	}
}
