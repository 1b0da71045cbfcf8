package netproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Destination is one connection's target as asked of the person.
type Destination struct {
	Host  string // as the client named it (a name or an IP literal)
	Port  uint16
	Addrs []netip.Addr // what the daemon resolved it to; the connection goes to these only
}

// String is the destination as a refusal names it: "registry.npmjs.org:443",
// "[fd00::1]:22".
func (d Destination) String() string {
	return net.JoinHostPort(d.Host, strconv.Itoa(int(d.Port)))
}

// Asker asks the person for one session (the engine). nil: allowed. An
// error's text is the reason the model reads. It blocks while the person
// decides (the engine bounds the wait) and returns when ctx ends.
type Asker interface {
	AskConnect(ctx context.Context, d Destination) error
}

// failKind is why a connection was not made; each protocol answers it in
// its own words.
type failKind int

const (
	failBad         failKind = iota // the destination is not one: no valid host or port
	failRefused                     // the policy or the person said no
	failResolve                     // the name did not resolve
	failUnreachable                 // no checked address answered
	failConnRefused                 // a checked address refused the connection
	failGone                        // the client left, or the server stops
)

// connectError is a connection not made.
type connectError struct {
	kind   failKind
	dest   Destination
	reason string
	err    error
}

func (e *connectError) Error() string {
	return fmt.Sprintf("connect to %s: %s", e.dest, e.reason)
}

func (e *connectError) Unwrap() error { return e.err }

// failure returns err's kind and the error itself; an error from outside
// connect counts as unreachable.
func failure(err error) (failKind, *connectError) {
	var ce *connectError
	if errors.As(err, &ce) {
		return ce.kind, ce
	}
	return failUnreachable, &connectError{kind: failUnreachable, reason: err.Error(), err: err}
}

// connect decides a destination and dials it: the whole path from a
// client's request to an open upstream connection.
func (s *Server) connect(ctx context.Context, host string, port uint16) (net.Conn, Destination, error) {
	d, err := s.decide(ctx, host, port)
	if err != nil {
		return nil, d, err
	}
	c, _, err := s.dialChecked(ctx, d)
	return c, d, err
}

// decide resolves a destination once, judges it and asks the person when
// the policy says so. The Destination it returns carries the addresses
// the check covered; only those may be dialled. A name the policy
// decides by its spelling alone (Policy.JudgeName) is decided before it
// is resolved: resolving is itself a query that leaves the machine, and
// a name is words of the command's choosing (data to smuggle out to a
// name server it controls), which a refused name, or one in mode ask
// the person has not yet allowed, must not carry out.
func (s *Server) decide(ctx context.Context, host string, port uint16) (Destination, error) {
	d := Destination{Host: canonicalHost(host), Port: port}
	if port == 0 || !validHost(d.Host) {
		return d, &connectError{kind: failBad, dest: d, reason: "not a host and port"}
	}
	asked := false
	if verdict, reason, ok := s.policy().JudgeName(d.Host); ok {
		if verdict == Refused {
			return d, s.refuse(d, reason)
		}
		if err := s.ask(ctx, d, reason); err != nil {
			return d, err
		}
		asked = true
	}
	addrs, err := s.resolve(ctx, d.Host)
	if err != nil {
		if ctx.Err() != nil {
			return d, &connectError{kind: failGone, dest: d, reason: context.Cause(ctx).Error(), err: err}
		}
		return d, &connectError{kind: failResolve, dest: d, reason: err.Error(), err: err}
	}
	d.Addrs = addrs
	verdict, reason := s.policy().Judge(d.Host, addrs, s.ownFunc())
	switch verdict {
	case Allowed:
		s.log().Debug("netproxy: allowed", "dest", d.String(), "addrs", addrs, "reason", reason)
		return d, nil
	case Asking:
		if asked { // the person allowed the name; its addresses passed the classes
			return d, nil
		}
		return d, s.ask(ctx, d, reason)
	}
	return d, s.refuse(d, reason)
}

// ask asks the person; the client is waiting meanwhile.
func (s *Server) ask(ctx context.Context, d Destination, why string) error {
	if s.Ask == nil {
		return s.refuse(d, "no one to ask ("+why+")")
	}
	s.log().Debug("netproxy: asking", "dest", d.String(), "addrs", d.Addrs, "reason", why)
	err := s.Ask.AskConnect(ctx, d)
	switch {
	case ctx.Err() != nil:
		s.log().Info("netproxy: the question ended unanswered", "dest", d.String(), "cause", context.Cause(ctx))
		return &connectError{kind: failGone, dest: d, reason: context.Cause(ctx).Error(), err: ctx.Err()}
	case err != nil:
		return s.refuse(d, err.Error())
	}
	return nil
}

// refuse records a refusal and returns it.
func (s *Server) refuse(d Destination, reason string) error {
	s.log().Info("netproxy: refused", "dest", d.String(), "addrs", d.Addrs, "reason", reason)
	if s.Refused != nil {
		s.Refused(d, reason)
	}
	return &connectError{kind: failRefused, dest: d, reason: reason}
}

// resolve is the one resolution of a destination: an IP literal is its own
// address, a name is resolved once and never again for this connection.
func (s *Server) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	lookup := s.Resolve
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	found, err := lookup(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", host, err)
	}
	var addrs []netip.Addr
	for _, a := range found {
		if a = a.Unmap(); a.IsValid() && !slices.Contains(addrs, a) {
			addrs = append(addrs, a)
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("resolving %s: no address", host)
	}
	return addrs, nil
}

// dialChecked dials the checked addresses in turn until one answers, and
// says which did.
func (s *Server) dialChecked(ctx context.Context, d Destination) (net.Conn, netip.Addr, error) {
	dial := s.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: dialTimeout}).DialContext
	}
	var errs []error
	for _, a := range d.Addrs {
		c, err := dial(ctx, "tcp", netip.AddrPortFrom(a, d.Port).String())
		if err == nil {
			return c, a, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			return nil, netip.Addr{}, &connectError{kind: failGone, dest: d, reason: context.Cause(ctx).Error(), err: ctx.Err()}
		}
	}
	err := errors.Join(errs...)
	kind := failUnreachable
	if errors.Is(err, syscall.ECONNREFUSED) {
		kind = failConnRefused
	}
	s.log().Info("netproxy: dial failed", "dest", d.String(), "addrs", d.Addrs, "err", err)
	return nil, netip.Addr{}, &connectError{kind: kind, dest: d, reason: oneLine(err.Error()), err: err}
}

func (s *Server) policy() Policy {
	if s.Policy == nil {
		return Policy{Mode: Off}
	}
	return s.Policy()
}

func (s *Server) ownFunc() func(netip.Addr) bool {
	if s.Own != nil {
		return s.Own
	}
	log := s.log()
	return func(a netip.Addr) bool { return s.own.contains(a, log) }
}

// validHost accepts an IP literal or a DNS name: letters, digits, '-',
// '_' and dots, labels of 1 to 63 bytes, at most 253 in all. Anything
// else would reach the patterns and the resolver as a string no one wrote
// a rule for. An IPv6 literal with a zone ("fd00::1%eth0") is neither:
// netip takes any text after '%' as the zone, spaces and all, which would
// reach the person's request as words of the command's choosing, and a
// zone only matters for link-local addresses, which are never reached.
func validHost(h string) bool {
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Zone() == ""
	}
	if h == "" || len(h) > 253 {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

// oneLine folds text onto one line: a reason goes into a status line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
