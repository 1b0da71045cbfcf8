package netproxy

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
)

// SOCKS5 (RFC 1928) as this proxy speaks it: no authentication, CONNECT
// only.
const (
	socksNoAuth       = 0x00
	socksNoAcceptable = 0xff
	socksCmdConnect   = 0x01
	socksAtypIPv4     = 0x01
	socksAtypDomain   = 0x03
	socksAtypIPv6     = 0x04
)

// SOCKS5 reply codes.
const (
	socksSucceeded          = 0x00
	socksGeneralFailure     = 0x01
	socksNotAllowed         = 0x02
	socksHostUnreachable    = 0x04
	socksConnRefused        = 0x05
	socksCmdNotSupported    = 0x07
	socksAtypNotSupported   = 0x08
	socksNoReplyPossible    = -1 // the greeting failed: no request to reply to
	socksRequestFixedLength = 4  // VER CMD RSV ATYP
)

// socksError is a head the proxy cannot serve, with the reply it gets.
type socksError struct {
	reply int // a reply code, or socksNoReplyPossible
	err   error
}

func (e *socksError) Error() string { return e.err.Error() }
func (e *socksError) Unwrap() error { return e.err }

// serveSOCKS serves a SOCKS5 client whose first byte was read.
func (s *Server) serveSOCKS(ctx context.Context, cl *client, busy bool) {
	host, port, err := readSOCKSHead(cl.br, cl.conn)
	cl.endHead()
	if err != nil {
		s.log().Debug("netproxy: bad SOCKS5 head", "remote", remote(cl.conn), "err", err)
		var se *socksError
		if errors.As(err, &se) && se.reply != socksNoReplyPossible {
			writeSOCKSReply(cl.conn, byte(se.reply))
		}
		return
	}
	if busy {
		writeSOCKSReply(cl.conn, socksGeneralFailure)
		return
	}
	var up net.Conn
	cl.whileWaiting(ctx, func(ctx context.Context) { up, _, err = s.connect(ctx, host, port) })
	if err != nil {
		if kind, _ := failure(err); kind != failGone {
			writeSOCKSReply(cl.conn, socksReplyFor(kind))
		}
		return
	}
	if err := writeSOCKSReply(cl.conn, socksSucceeded); err != nil {
		up.Close()
		return
	}
	tunnel(ctx, cl, up)
}

// readSOCKSHead reads the greeting, chooses no authentication (writing the
// choice to w), and reads the CONNECT request: its host (an IP literal or a
// name) and port.
func readSOCKSHead(r io.Reader, w io.Writer) (string, uint16, error) {
	var greeting [2]byte
	if _, err := io.ReadFull(r, greeting[:]); err != nil {
		return "", 0, &socksError{socksNoReplyPossible, fmt.Errorf("reading the SOCKS5 greeting: %w", err)}
	}
	methods := make([]byte, greeting[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return "", 0, &socksError{socksNoReplyPossible, fmt.Errorf("reading the SOCKS5 methods: %w", err)}
	}
	if !slices.Contains(methods, socksNoAuth) {
		w.Write([]byte{socksVersion, socksNoAcceptable})
		return "", 0, &socksError{socksNoReplyPossible, errors.New("the SOCKS5 client offers no method without authentication")}
	}
	if _, err := w.Write([]byte{socksVersion, socksNoAuth}); err != nil {
		return "", 0, &socksError{socksNoReplyPossible, fmt.Errorf("choosing the SOCKS5 method: %w", err)}
	}
	var req [socksRequestFixedLength]byte
	if _, err := io.ReadFull(r, req[:]); err != nil {
		return "", 0, &socksError{socksNoReplyPossible, fmt.Errorf("reading the SOCKS5 request: %w", err)}
	}
	switch {
	case req[0] != socksVersion:
		return "", 0, &socksError{socksGeneralFailure, fmt.Errorf("SOCKS5 request of version %d", req[0])}
	case req[1] != socksCmdConnect:
		return "", 0, &socksError{socksCmdNotSupported, fmt.Errorf("SOCKS5 command %d: only CONNECT is served", req[1])}
	}
	host, err := readSOCKSAddr(r, req[3])
	if err != nil {
		return "", 0, err
	}
	var port [2]byte
	if _, err := io.ReadFull(r, port[:]); err != nil {
		return "", 0, &socksError{socksNoReplyPossible, fmt.Errorf("reading the SOCKS5 port: %w", err)}
	}
	return host, binary.BigEndian.Uint16(port[:]), nil
}

// readSOCKSAddr reads a request's address of type atyp as a host string.
func readSOCKSAddr(r io.Reader, atyp byte) (string, error) {
	var n int
	switch atyp {
	case socksAtypIPv4:
		n = 4
	case socksAtypIPv6:
		n = 16
	case socksAtypDomain:
		var l [1]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return "", &socksError{socksNoReplyPossible, fmt.Errorf("reading the SOCKS5 name's length: %w", err)}
		}
		n = int(l[0])
	default:
		return "", &socksError{socksAtypNotSupported, fmt.Errorf("SOCKS5 address type %d", atyp)}
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", &socksError{socksNoReplyPossible, fmt.Errorf("reading the SOCKS5 address: %w", err)}
	}
	switch atyp {
	case socksAtypIPv4:
		return netip.AddrFrom4([4]byte(b)).String(), nil
	case socksAtypIPv6:
		return netip.AddrFrom16([16]byte(b)).String(), nil
	}
	return string(b), nil
}

// writeSOCKSReply answers the request. The bound address is always
// 0.0.0.0:0: the client has no use for the daemon's outgoing address.
func writeSOCKSReply(w io.Writer, code byte) error {
	_, err := w.Write([]byte{socksVersion, code, 0x00, socksAtypIPv4, 0, 0, 0, 0, 0, 0})
	return err
}

// socksReplyFor is the reply code for a connection not made.
func socksReplyFor(k failKind) byte {
	switch k {
	case failRefused:
		return socksNotAllowed
	case failConnRefused:
		return socksConnRefused
	case failResolve, failUnreachable:
		return socksHostUnreachable
	}
	return socksGeneralFailure
}
