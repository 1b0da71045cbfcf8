// Package netproxy is the one way out of a confined command's network
// namespace: a proxy the daemon runs outside the sandbox, serving SOCKS5
// and an HTTP proxy on the same listener.
//
// Every connection names a destination; the proxy resolves it once,
// classifies every address it got (Classify), judges it against the device
// policy (Policy.Judge), asks the person when the policy says so (Asker),
// and dials only the addresses it checked. A name is never resolved a
// second time between the check and the dial, so it cannot rebind to an
// address the check would have refused, and a name that resolves to any
// address of this machine, its loopback, link-local or metadata services
// is refused whatever else it resolves to.
//
// The HTTP side is written on net/http's request and response readers and
// writers rather than on github.com/elazarl/goproxy. goproxy forwards
// plain HTTP through an http.Transport, which dials by host name from its
// own pool: making it dial only the addresses checked for this request
// (and never reuse a connection checked under an earlier policy) would
// mean replacing its transport and dialer, its refusals go through a
// ResponseWriter that cannot set the reason phrase a refusal carries here,
// and it serves through an http.Server, which neither bounds one
// connection's head the way this proxy must nor lets SOCKS5 share the
// listener. What is left of it after those changes is less than the few
// hundred lines here, so the package depends on the standard library alone.
//
// The files follow its concerns: classify.go (what an address is to this
// machine), policy.go (the verdict), connect.go (resolve, judge, ask,
// dial), socks5.go and httpproxy.go (the two protocols), tunnel.go (bytes
// both ways), own.go (this machine's addresses) and server.go (accepting,
// bounds, the per-connection set-up).
package netproxy
