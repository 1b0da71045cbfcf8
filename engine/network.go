package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"pathgrant/devicepolicy"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/netproxy"
	"pathgrant/wire"
)

// A confined command in a network namespace of its own goes out only
// through the daemon: its inner step listens on the namespace's loopback
// and hands the listener out (package sandbox/kernel), over the
// connection its front end opened with the command's net ticket (CapNet,
// PathNet), or over a socket pair for the daemon's own tool calls. The
// daemon accepts on it from outside the sandbox and serves the proxy
// (package netproxy) for the command's session: every destination is
// resolved here and judged by the device policy in force; one the policy
// leaves to the person is asked exactly as a held open's read is (the
// same request, coalesced per destination, prompt, codes and person-only
// rules), with the destination as the request's path (guard.OpConnect).
// Nothing the command can kill holds the way out, and when it ends, or
// its front end is gone, the listener is closed.

// ConnectTool is the tool a connection's check and request name.
const ConnectTool = "connect (command paused)"

// NetChannel checks the call's net ticket and returns what serves the
// connection the transport then hands over (the front end's, whose
// other end is in the sandbox).
func (s *Engine) NetChannel(c Call) (func(*net.UnixConn), *Error) {
	if c.cap == nil || c.cap.kind != CapNet {
		return nil, errorf(Forbidden, grants.KindForged, "a network namespace's way out takes a net ticket")
	}
	if peer, ok := c.caller.Peer(); !ok || peer != c.cap.holder {
		return nil, s.refuse(errorf(Forbidden, grants.KindForged, "a net ticket is its front end's alone"), c.sess.ID)
	}
	sess, check := c.sess, c.cap.check
	by := raiser(fmt.Sprintf("front end %d started %d", c.cap.holder.PID, c.cap.holder.Start))
	return func(uc *net.UnixConn) { s.serveNet(s.ctx, sess, check, by, uc) }, nil
}

// serveNet serves the proxy on the listeners the inner step sends over
// uc until uc's other ends are all closed (the sandbox and its front end
// are gone) or ctx ends.
func (s *Engine) serveNet(ctx context.Context, sess *session, check string, by raiser, uc *net.UnixConn) {
	defer uc.Close()
	lns, err := receiveListeners(uc)
	if err != nil {
		s.log.Warn("no way out of a command's network namespace", "session", sess.ID, "err", err)
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		drainUntilClosed(uc)
		cancel()
	}()
	srv := s.netServer(sess, check, by)
	var wg sync.WaitGroup
	for _, ln := range lns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := srv.Serve(ctx, ln); err != nil {
				s.log.Warn("a command's proxy stopped", "session", sess.ID, "err", err)
			}
		}()
	}
	<-ctx.Done()
	wg.Wait()
}

// netServer is the proxy of one command of sess: the device policy read
// at every connection, destinations it leaves to the person asked for
// sess, refusals kept as lines for the command's end.
func (s *Engine) netServer(sess *session, check string, by raiser) *netproxy.Server {
	return &netproxy.Server{
		Policy: func() netproxy.Policy { return NetPolicy(s.deviceFile().Network) },
		Ask:    connectAsker{s: s, sess: sess, by: by},
		Refused: func(d netproxy.Destination, why string) {
			s.netLines.add(check, d.String(), connectLine(d.String(), why))
		},
		Log: s.log.With("session", sess.ID),
	}
}

// NetPolicy is the proxy's reading of the device policy's network table.
func NetPolicy(n devicepolicy.Network) netproxy.Policy {
	mode := netproxy.Mode(n.Mode)
	if mode == "" {
		mode = netproxy.AllowPublic
	}
	return netproxy.Policy{Mode: mode, Allow: n.Allow, Refuse: n.Refuse, AllowRanges: n.Prefixes()}
}

// connectAsker asks the person about a destination for one session,
// as the command by.
type connectAsker struct {
	s    *Engine
	sess *session
	by   raiser
}

func (a connectAsker) AskConnect(ctx context.Context, d netproxy.Destination) error {
	dest, err := guard.Destination(d.String())
	if err != nil {
		return err
	}
	s := a.s
	ans, aerr := s.check(ctx, a.sess, wire.CheckRequest{Op: guard.OpConnect, Path: dest, Tool: ConnectTool,
		Input: resolvedTo(d), WaitMS: int(s.cfg.MaxWait.Milliseconds())}, a.by)
	if ans.Pending != "" && ctx.Err() != nil {
		s.withdraw(ans.Pending, a.by, "the command ended before a decision")
	}
	switch {
	case aerr != nil:
		return aerr
	case ans.Decision == guard.Allow:
		return nil
	case ans.Pending != "" && ans.Eligible:
		return fmt.Errorf("no decision in time: request %s stays pending in pathgrant's window; approve it there, then run the command again", ans.Pending)
	}
	return errors.New(oneLine(ans.Reason))
}

// resolvedTo is what a name was resolved to, each address with its
// class, for the person's eyes (the request's input); "" for an address.
// A name is asked about because of an address the name alone does not
// show (a private one, in the default mode): "build.example.com:443"
// may be a host on the person's own network, which they must see to
// judge it.
func resolvedTo(d netproxy.Destination) string {
	if _, err := netip.ParseAddr(d.Host); err == nil || len(d.Addrs) == 0 {
		return ""
	}
	shown := make([]string, len(d.Addrs))
	for i, a := range d.Addrs {
		shown[i] = fmt.Sprintf("%s (%s)", a, netproxy.Classify(a, nil))
	}
	return d.Host + " resolves to " + strings.Join(shown, ", ")
}

// drainUntilClosed reads uc until every other end is closed: descriptors
// sent later are never taken (the kernel closes them), bytes discarded.
func drainUntilClosed(uc *net.UnixConn) {
	_, _ = io.Copy(io.Discard, uc)
}

// toolNet is the way out of the network namespace of one of the daemon's
// own tool commands (p): the sandbox's end of a socket pair, whose other
// end the daemon serves until stop; no file and a stop that does nothing
// when p has none.
func (s *Engine) toolNet(sess *session, check string, by raiser, p wire.Prepared) (*os.File, context.CancelFunc, error) {
	if p.Net == nil {
		return nil, func() {}, nil
	}
	pair, err := socketPair()
	if err != nil {
		return nil, nil, fmt.Errorf("the command's way out: %w", err)
	}
	ours := os.NewFile(uintptr(pair[0]), "pathgrant-net")
	defer ours.Close()
	fc, err := net.FileConn(ours)
	if err != nil {
		unix.Close(pair[1])
		return nil, nil, fmt.Errorf("the command's way out: %w", err)
	}
	ctx, stop := context.WithCancel(s.ctx)
	go s.serveNet(ctx, sess, check, by, fc.(*net.UnixConn))
	return os.NewFile(uintptr(pair[1]), "pathgrant-net-sandbox"), stop, nil
}

// connectLine is the one line a refused destination adds to the
// command's end.
func connectLine(dest, why string) string {
	return fmt.Sprintf("pathgrant: connect to %s refused: %s", wire.Printable(dest), oneLine(why))
}
