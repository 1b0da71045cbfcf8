package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// Take POSTs in to path on a connection of its own and, once the daemon
// answers 2xx, hands the connection over: from that answer on it is no
// longer HTTP but the route's own (PathNet: a descriptor passed over it).
// The daemon sends nothing after its answer, so nothing read past it is
// lost. The file has no timeouts left; closing it tells the daemon the
// caller is done. A refusal is a *DaemonError, as from Do.
func (c *Client) Take(ctx context.Context, path string, in any, extra ...Header) (*os.File, error) {
	keep := Client{Socket: c.Socket, Session: c.Session, Token: c.Token, Keep: 1} // no "Connection: close": the connection outlives the answer
	req, err := keep.encode("POST", path, in, extra)
	if err != nil {
		return nil, err
	}
	deadline, _ := ctx.Deadline()
	f, err := dial(ctx, c.Socket, deadline, false)
	if err != nil {
		return nil, err
	}
	resp, err := takeAnswer(ctx, f, deadline, req)
	if err != nil {
		f.Close()
		return nil, c.exchangeError(ctx, err)
	}
	if resp.status/100 != 2 {
		f.Close()
		var e Error
		_ = json.Unmarshal(resp.body, &e)
		if e.Error == "" {
			e.Error = strings.TrimSpace(string(resp.body))
		}
		return nil, &DaemonError{Status: resp.status, Kind: e.Kind, Msg: e.Error}
	}
	if err := withFD(f, func(fd int) error { return setTimeouts(fd, time.Time{}, syscall.SO_RCVTIMEO, syscall.SO_SNDTIMEO) }); err != nil {
		f.Close()
		return nil, fmt.Errorf("pathgrant daemon at %s: %w", c.Socket, err)
	}
	return f, nil
}

// takeAnswer sends req on f and reads the answer byte by byte up to its
// end: a buffered read could swallow what follows it.
func takeAnswer(ctx context.Context, f *os.File, deadline time.Time, req []byte) (response, error) {
	if err := withFD(f, func(fd int) error { return setTimeouts(fd, deadline, syscall.SO_RCVTIMEO, syscall.SO_SNDTIMEO) }); err != nil {
		return response{}, err
	}
	stop := context.AfterFunc(ctx, func() { shutdown(f) })
	defer stop()
	if _, err := f.Write(req); err != nil {
		return response{}, err
	}
	return readResponse(bufio.NewReaderSize(oneByte{f}, 4096), MaxAnswer)
}

// oneByte reads at most one byte at a time, so a bufio.Reader over it
// never reads past what it is asked for.
type oneByte struct{ f *os.File }

func (o oneByte) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.f.Read(p)
}
