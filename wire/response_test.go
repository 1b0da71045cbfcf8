package wire

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestReadResponse: every way an HTTP/1.x answer can end its body, and
// every malformed or cut answer, one row each.
func TestReadResponse(t *testing.T) {
	tests := []struct {
		name, answer string
		status       int
		body         string
		close        bool
		err          error // nil: no error; errAny: some error
	}{
		{"content-length, kept open", "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n{\"a\":1}", 200, `{"a":1}`, false, nil},
		{"chunked with trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4\r\n\":1}\r\n0\r\nX-T: 1\r\n\r\n", 200, `{"a":1}`, false, nil},
		{"connection close", "HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 2\r\n\r\nno", 403, "no", true, nil},
		{"HTTP/1.0 closes", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 200, "ok", true, nil},
		{"body to the end of the stream", "HTTP/1.1 200 OK\r\n\r\nall of it", 200, "all of it", true, nil},
		{"closed before any byte", "", 0, "", false, io.EOF},
		{"cut in the head", "HTTP/1.1 200 OK\r\nContent-Le", 0, "", false, io.ErrUnexpectedEOF},
		{"cut in the body", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", 0, "", false, io.ErrUnexpectedEOF},
		{"head read, no body byte", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", 0, "", false, io.ErrUnexpectedEOF},
		{"chunked, cut before a chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n", 0, "", false, io.ErrUnexpectedEOF},
		{"header line over the buffer", "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 5000) + "\r\n\r\n", 0, "", false, errAny},
		{"not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", 0, "", false, errAny},
		{"no status", "HTTP/1.1 OK\r\n\r\n", 0, "", false, errAny},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0, "", false, errAny},
		{"too large", "HTTP/1.1 200 OK\r\nContent-Length: 99999999\r\n\r\n", 0, "", false, errAny},
		{"bad chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 0, "", false, errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := readResponse(bufio.NewReader(strings.NewReader(tt.answer)), 1<<20)
			switch {
			case tt.err == nil && err != nil, tt.err != nil && err == nil:
				t.Fatalf("readResponse: %v; want error %v", err, tt.err)
			case tt.err != nil && tt.err != errAny && !errors.Is(err, tt.err):
				t.Fatalf("readResponse: %v; want %v", err, tt.err)
			case tt.err != nil:
				return
			}
			if resp.status != tt.status || string(resp.body) != tt.body || resp.close != tt.close {
				t.Errorf("readResponse = %d %q close %v; want %d %q close %v", resp.status, resp.body, resp.close, tt.status, tt.body, tt.close)
			}
		})
	}
}

var errAny = errors.New("any error")
