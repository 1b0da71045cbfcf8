package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
)

// hopHeaders are the headers of one hop, never forwarded (RFC 9110 7.6.1),
// with the proxy's own: Proxy-Authorization and Proxy-Connection.
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

// serveHTTP serves an HTTP proxy client whose first byte was read: one
// request after another on the connection, until one ends it.
func (s *Server) serveHTTP(ctx context.Context, cl *client, busy bool) {
	var up *upstream
	defer func() { up.close() }()
	for first := true; ; first = false {
		if !first {
			cl.beginHead()
		}
		req, err := http.ReadRequest(cl.br)
		cl.endHead()
		if err != nil {
			s.badHead(cl, err)
			return
		}
		switch {
		case busy:
			writeHTTPError(cl.conn, http.StatusServiceUnavailable, "",
				fmt.Sprintf("pathgrant proxy: %d connections already open; try again when one ends", s.connLimit()))
			return
		case req.Method == http.MethodConnect:
			s.httpConnect(ctx, cl, req)
			return
		case req.URL.IsAbs():
			if !s.forward(ctx, cl, req, &up) {
				return
			}
		default:
			writeHTTPError(cl.conn, http.StatusBadRequest, "",
				"pathgrant proxy: a request names its destination: CONNECT host:port, or an absolute URL (GET http://host/path)")
			return
		}
	}
}

// badHead answers a head that could not be read, or ends quietly when the
// client closed between requests.
func (s *Server) badHead(cl *client, err error) {
	s.log().Debug("netproxy: bad request head", "remote", remote(cl.conn), "err", err)
	switch {
	case errors.Is(err, io.EOF):
	case errors.Is(err, os.ErrDeadlineExceeded):
		writeHTTPError(cl.conn, http.StatusRequestTimeout, "",
			fmt.Sprintf("pathgrant proxy: the request head did not arrive within %s", cl.timeout))
	case errors.Is(err, errHeadTooLarge):
		writeHTTPError(cl.conn, http.StatusRequestHeaderFieldsTooLarge, "", "pathgrant proxy: "+errHeadTooLarge.Error())
	default:
		writeHTTPError(cl.conn, http.StatusBadRequest, "", "pathgrant proxy: bad request: "+err.Error())
	}
}

// httpConnect opens a tunnel to CONNECT's host:port.
func (s *Server) httpConnect(ctx context.Context, cl *client, req *http.Request) {
	host, port, err := splitHostPort(req.RequestURI)
	if err != nil {
		writeHTTPError(cl.conn, http.StatusBadRequest, "", "pathgrant proxy: CONNECT names host:port: "+err.Error())
		return
	}
	var up net.Conn
	cl.whileWaiting(ctx, func(ctx context.Context) { up, _, err = s.connect(ctx, host, port) })
	if err != nil {
		answerFailure(cl.conn, err)
		return
	}
	if _, err := io.WriteString(cl.conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		up.Close()
		return
	}
	tunnel(ctx, cl, up)
}

// upstream is the connection kept for the client's next request, with the
// destination and the checked address it was opened for.
type upstream struct {
	conn net.Conn
	br   *bufio.Reader
	dest string
	addr netip.Addr
}

func newUpstream(c net.Conn, d Destination, addr netip.Addr) *upstream {
	return &upstream{conn: c, br: bufio.NewReader(c), dest: d.String(), addr: addr}
}

// dialUpstream dials d's checked addresses for forwarding.
func (s *Server) dialUpstream(ctx context.Context, d Destination) (*upstream, error) {
	c, addr, err := s.dialChecked(ctx, d)
	if err != nil {
		return nil, err
	}
	return newUpstream(c, d, addr), nil
}

// serves reports whether the kept connection may carry a request just
// checked for d: the same destination, at an address this check covered
// (a reload of the policy or a new resolution is not bypassed).
func (up *upstream) serves(d Destination) bool {
	return up != nil && up.dest == d.String() && slices.Contains(d.Addrs, up.addr)
}

func (up *upstream) close() {
	if up != nil {
		up.conn.Close()
	}
}

// forward checks an absolute-form request's destination, sends it there
// in origin form and relays the response. It reports whether the client's
// connection carries another request.
func (s *Server) forward(ctx context.Context, cl *client, req *http.Request, upp **upstream) bool {
	if req.URL.Scheme != "http" {
		writeHTTPError(cl.conn, http.StatusBadRequest, "", "pathgrant proxy: only http:// URLs are forwarded; https goes through CONNECT")
		return false
	}
	host, port, err := urlHostPort(req.URL)
	if err != nil {
		writeHTTPError(cl.conn, http.StatusBadRequest, "", "pathgrant proxy: "+err.Error())
		return false
	}
	var d Destination
	cl.whileWaiting(ctx, func(ctx context.Context) { d, err = s.decide(ctx, host, port) })
	if err != nil {
		answerFailure(cl.conn, err)
		return false
	}
	reused := (*upp).serves(d)
	if !reused {
		(*upp).close()
		*upp = nil
		cl.whileWaiting(ctx, func(ctx context.Context) { *upp, err = s.dialUpstream(ctx, d) })
		if err != nil {
			answerFailure(cl.conn, err)
			return false
		}
	}
	clientClose := req.Close
	if !prepareOutgoing(cl.conn, req) {
		return false
	}
	resp, err := roundTrip(*upp, req)
	if err != nil && reused && req.Body == http.NoBody {
		// The kept connection had ended while idle: one fresh dial to the
		// same checked addresses, for a request with nothing to resend.
		(*upp).close()
		*upp = nil
		if *upp, err = s.dialUpstream(ctx, d); err == nil {
			resp, err = roundTrip(*upp, req)
		}
	}
	if err != nil {
		(*upp).close()
		*upp = nil
		writeHTTPError(cl.conn, http.StatusBadGateway, "", fmt.Sprintf("pathgrant proxy: forwarding to %s: %v", d, err))
		return false
	}
	defer resp.Body.Close()
	keep, upKeep := relay(cl.conn, req, resp, clientClose)
	if !upKeep {
		(*upp).close()
		*upp = nil
	}
	return keep
}

// prepareOutgoing makes a client's request the one the destination gets:
// no hop headers, the proxy's 100 Continue answered here (the body then
// streams through), no User-Agent added where the client sent none.
func prepareOutgoing(w io.Writer, req *http.Request) bool {
	expectContinue := strings.EqualFold(req.Header.Get("Expect"), "100-continue")
	removeHopHeaders(req.Header)
	req.Header.Del("Expect")
	req.RequestURI = ""
	req.Close = false
	if _, ok := req.Header["User-Agent"]; !ok {
		req.Header["User-Agent"] = []string{""}
	}
	if expectContinue {
		if _, err := io.WriteString(w, "HTTP/1.1 100 Continue\r\n\r\n"); err != nil {
			return false
		}
	}
	return true
}

// roundTrip sends req on up and reads its final response; informational
// responses are dropped (the proxy answered 100 Continue itself).
func roundTrip(up *upstream, req *http.Request) (*http.Response, error) {
	if err := req.Write(up.conn); err != nil {
		return nil, fmt.Errorf("sending the request: %w", err)
	}
	for {
		resp, err := http.ReadResponse(up.br, req)
		if err != nil {
			return nil, fmt.Errorf("reading the response: %w", err)
		}
		switch {
		case resp.StatusCode == http.StatusSwitchingProtocols:
			resp.Body.Close()
			return nil, errors.New("the destination switched protocols, which this proxy does not forward")
		case resp.StatusCode < 200:
			resp.Body.Close()
			continue
		}
		return resp, nil
	}
}

// relay writes the response to the client. It reports whether the client's
// connection and the destination's carry another request.
func relay(w io.Writer, req *http.Request, resp *http.Response, clientClose bool) (keep, upKeep bool) {
	upKeep = !resp.Close
	removeHopHeaders(resp.Header)
	untilClose := resp.ContentLength < 0 && !slices.Contains(resp.TransferEncoding, "chunked") && bodyAllowed(req, resp)
	resp.Close = clientClose || untilClose
	bw := bufio.NewWriter(w)
	err := resp.Write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return false, false
	}
	return !resp.Close, upKeep && !untilClose
}

// bodyAllowed reports whether the response can carry a body at all.
func bodyAllowed(req *http.Request, resp *http.Response) bool {
	return req.Method != http.MethodHead && resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusNotModified
}

// removeHopHeaders drops the hop headers and those Connection names.
func removeHopHeaders(h http.Header) {
	for _, v := range h.Values("Connection") {
		for name := range strings.SplitSeq(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, name := range hopHeaders {
		h.Del(name)
	}
}

// answerFailure answers a connection not made; a client that left gets
// nothing.
func answerFailure(w io.Writer, err error) {
	kind, ce := failure(err)
	switch kind {
	case failGone:
	case failRefused:
		text := fmt.Sprintf("pathgrant refused connect to %s: %s", ce.dest, ce.reason)
		writeHTTPError(w, http.StatusForbidden, text, text)
	case failBad:
		writeHTTPError(w, http.StatusBadRequest, "", "pathgrant proxy: "+ce.Error())
	case failResolve:
		writeHTTPError(w, http.StatusBadGateway, "", fmt.Sprintf("pathgrant could not resolve %s: %s", ce.dest.Host, ce.reason))
	default:
		writeHTTPError(w, http.StatusBadGateway, "", fmt.Sprintf("pathgrant could not connect to %s: %s", ce.dest, ce.reason))
	}
}

// writeHTTPError writes a final answer with a one-line text body; the
// connection ends after it. phrase "" is the status's usual text.
func writeHTTPError(w io.Writer, code int, phrase, text string) error {
	if phrase == "" {
		phrase = http.StatusText(code)
	}
	text = oneLine(text) + "\n"
	_, err := fmt.Fprintf(w, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		code, oneLine(phrase), len(text), text)
	return err
}

// splitHostPort parses CONNECT's authority, host:port.
func splitHostPort(authority string) (string, uint16, error) {
	host, p, err := net.SplitHostPort(authority)
	if err != nil {
		return "", 0, err
	}
	port, err := parsePort(p)
	return host, port, err
}

// urlHostPort is an absolute URL's host and port, 80 when none is written.
func urlHostPort(u *url.URL) (string, uint16, error) {
	p := u.Port()
	if p == "" {
		p = "80"
	}
	port, err := parsePort(p)
	return u.Hostname(), port, err
}

func parsePort(p string) (uint16, error) {
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("port %q is not a port", p)
	}
	return uint16(n), nil
}
