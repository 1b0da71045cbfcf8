package ipc

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// handleNet takes over the connection of a confined command's front end
// that presented its net ticket: once the engine accepts the ticket the
// route answers 200 and the connection is no longer HTTP but the way out
// of the command's network namespace, which the engine serves (the inner
// step sends its loopback listener over it; engine.NetChannel).
func (s *Server) handleNet(w http.ResponseWriter, r *http.Request, c sessionCall) {
	serve, aerr := s.e.NetChannel(c.Call)
	if aerr != nil {
		reply(w, nil, aerr)
		return
	}
	uc, err := takeOver(w)
	if err != nil {
		s.log.Warn("could not take over a net ticket's connection", "err", err)
		return
	}
	go serve(uc)
}

// takeOver hijacks w's connection, answers 200 on it and returns it as
// the Unix connection it is, with no deadlines left. A client that sent
// anything past its request is refused: nothing may be read for it.
func takeOver(w http.ResponseWriter) (*net.UnixConn, error) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return nil, errors.New("the connection cannot be taken over")
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return nil, fmt.Errorf("take over: %w", err)
	}
	uc, ok := unixConn(conn)
	if !ok || rw.Reader.Buffered() > 0 {
		conn.Close()
		return nil, errors.New("take over: not a Unix connection, or bytes sent past the request")
	}
	if err := uc.SetDeadline(time.Time{}); err != nil {
		uc.Close()
		return nil, fmt.Errorf("take over: %w", err)
	}
	if _, err := uc.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")); err != nil {
		uc.Close()
		return nil, fmt.Errorf("take over: %w", err)
	}
	return uc, nil
}

// unixConn is the Unix connection under an admitted one.
func unixConn(c net.Conn) (*net.UnixConn, bool) {
	if pc, ok := c.(*peerConn); ok {
		c = pc.Conn
	}
	uc, ok := c.(*net.UnixConn)
	return uc, ok
}
