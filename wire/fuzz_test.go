package wire

import (
	"bufio"
	"bytes"
	"testing"
)

// FuzzReadResponse: whatever a daemon (or something bound at its path)
// answers, the reader returns an answer within the limit or an error; it
// never panics and never hands back more body than it was allowed.
func FuzzReadResponse(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"))
	f.Add([]byte("HTTP/1.0 403 Forbidden\r\n\r\n{\"error\":\"no\"}"))
	const limit = 1 << 10
	f.Fuzz(func(t *testing.T, answer []byte) {
		resp, err := readResponse(bufio.NewReader(bytes.NewReader(answer)), limit)
		if err != nil {
			return
		}
		if resp.status < 100 || resp.status > 999 || len(resp.body) > limit {
			t.Fatalf("answer %q read as status %d with %d body bytes (limit %d)", answer, resp.status, len(resp.body), limit)
		}
		if !bytes.Contains(answer, resp.body) && !bytes.Contains(answer, []byte("chunked")) {
			t.Fatalf("body %q is not in the answer %q", resp.body, answer)
		}
	})
}
