package ipc

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"pathgrant/devicepolicy"
	"pathgrant/engine"
	"pathgrant/sandbox"
	"pathgrant/sandbox/heldfs"
	"pathgrant/wire"
)

// dyingLauncher is recordLauncher, with the front end gone by the time
// the sandbox is prepared (killed while the daemon settled the session's
// earlier checks and built the view).
type dyingLauncher struct {
	*recordLauncher
	dead *atomic.Bool
}

func (l dyingLauncher) Launch(pol wire.Policy, d devicepolicy.Policy, r wire.ExecRequest) (sandbox.Launch, error) {
	l.dead.Store(true)
	launch, err := l.recordLauncher.Launch(pol, d, r)
	launch.Prepared.Workspace = pol.Workspace // a command with a workspace owes a check
	return launch, err
}

// slowHeld registers after a pause, as pinning the roots takes time.
type slowHeld struct {
	*heldServer
	pause time.Duration
}

func (h slowHeld) Register(token string, c heldfs.Command) error {
	time.Sleep(h.pause)
	return h.heldServer.Register(token, c)
}

// TestServedFrontEndGoneBeforeRegistered: a front end gone before its
// command's token is registered (killed while the daemon prepared its
// sandbox, registration slow) leaves no token served: the owed check's
// watch, which fires at once, comes after the registration.
func TestServedFrontEndGoneBeforeRegistered(t *testing.T) {
	for i := range 2 {
		held := &heldServer{registered: map[string]heldfs.Command{}}
		var dead atomic.Bool
		holder := agentLineage[0].Proc
		ce := newCapEnv(t, func(c *Config) {
			c.Held = slowHeld{held, 20 * time.Millisecond}
			c.ProcAlive = func(p engine.Proc) bool { return !(dead.Load() && p == holder) }
			c.Launcher = dyingLauncher{c.Launcher.(*recordLauncher), &dead}
		})
		ce.launcher.served = []string{ce.dl}
		const command = "python3 read.py"
		if _, st := ce.prepare(t, ce.hookCheck(t, command).Exec.Capability, command, ""); st != http.StatusOK {
			t.Fatalf("prepare %d: %d", i, st)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			_, ok, gone := held.command("token-1")
			if ok && gone {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("prepare %d: token registered %v, still served 5 s after its front end was gone", i, ok)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
