package wire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// response is one HTTP/1.x answer: its status, its body, and whether the
// daemon closes the connection after it (HTTP/1.0, "Connection: close",
// or a body that ends with the stream).
type response struct {
	status int
	body   []byte
	close  bool
}

// readResponse reads one answer of at most limit body bytes, delimited by
// Content-Length, chunked, or the end of the stream.
// A stream that ends before the answer's first byte is io.EOF itself:
// the daemon closed the connection unanswered.
func readResponse(r *bufio.Reader, limit int) (response, error) {
	if _, err := r.Peek(1); err != nil {
		return response{}, err
	}
	line, err := readLine(r)
	if err != nil {
		return response{}, err
	}
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || err != nil || status < 100 || status > 999 {
		return response{}, fmt.Errorf("malformed status line %q", line)
	}
	resp := response{status: status, close: proto == "HTTP/1.0"}
	length, chunked := -1, false
	for {
		h, err := readLine(r)
		if err != nil {
			return response{}, err
		}
		if h == "" {
			break
		}
		k, v, ok := strings.Cut(h, ":")
		if !ok {
			return response{}, fmt.Errorf("malformed header %q", h)
		}
		v = strings.TrimSpace(v)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "content-length":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return response{}, fmt.Errorf("malformed Content-Length %q", v)
			}
			length = n
		case "transfer-encoding":
			chunked = strings.EqualFold(v, "chunked")
		case "connection":
			resp.close = resp.close || strings.EqualFold(v, "close")
		}
	}
	switch {
	case chunked:
		resp.body, err = readChunked(r, limit)
	case length > limit:
		return response{}, fmt.Errorf("answer of %d bytes is too large", length)
	case length >= 0:
		resp.body = make([]byte, length)
		if _, err = io.ReadFull(r, resp.body); errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // the head was read: the answer is cut, not missing
		}
	default:
		resp.close = true
		resp.body, err = io.ReadAll(io.LimitReader(r, int64(limit)))
	}
	return resp, err
}

func readChunked(r *bufio.Reader, limit int) ([]byte, error) {
	var body []byte
	for {
		line, err := readLine(r)
		if err != nil {
			return nil, err
		}
		size, _, _ := strings.Cut(line, ";")
		n, err := strconv.ParseInt(strings.TrimSpace(size), 16, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("malformed chunk size %q", line)
		}
		if n == 0 {
			// The trailers, if any, end with an empty line.
			for {
				t, err := readLine(r)
				if err != nil || t == "" {
					return body, err
				}
			}
		}
		if n > int64(limit-len(body)) {
			return nil, errors.New("answer is too large")
		}
		chunk := make([]byte, n)
		if _, err := io.ReadFull(r, chunk); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		body = append(body, chunk...)
		if _, err := readLine(r); err != nil {
			return nil, err
		}
	}
}

// readLine reads one line of at most the reader's buffer (4 KiB): a
// longer one is an error, never a growing allocation.
func readLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return "", errors.New("header line too long")
	case errors.Is(err, io.EOF):
		return "", io.ErrUnexpectedEOF
	case err != nil:
		return "", err
	}
	return strings.TrimRight(string(line), "\r\n"), nil
}
