package hooks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// maxAnswer bounds what is read back from the daemon.
const maxAnswer = 1 << 20

// DaemonError is a refusal from the daemon (any non-2xx answer).
type DaemonError struct {
	Status int
	Kind   string
	Msg    string
}

func (e *DaemonError) Error() string {
	return fmt.Sprintf("%s (HTTP %d)", e.Msg, e.Status)
}

// UnreachableError means no daemon accepted the connection.
type UnreachableError struct {
	Socket string
	Err    error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("pathgrant daemon not reachable at %s: %v", e.Socket, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Check sends one check request to the daemon at socket and returns its
// answer. token, when set, is sent as X-Session-Token. The context's
// deadline bounds the whole exchange, including a wait for the user's
// decision; a context without one gets DefaultWait plus answerGrace.
//
// The socket is a plain blocking file descriptor with kernel send and
// receive timeouts, not a net.Conn: the hook then starts no network poller
// and links no net package, which keeps its start-up short.
func Check(ctx context.Context, socket, token string, req CheckRequest) (Answer, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Answer{}, fmt.Errorf("encode check request: %w", err)
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultWait + answerGrace)
	}
	conn, err := dialUnix(socket, deadline)
	if err != nil {
		return Answer{}, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = shutdown(conn) })
	defer stop()

	var head bytes.Buffer
	head.WriteString("POST /v1/check HTTP/1.1\r\nHost: pathgrant\r\nConnection: close\r\nContent-Type: application/json\r\n")
	if token != "" {
		head.WriteString(headerToken + ": " + token + "\r\n")
	}
	head.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	head.Write(body)
	if _, err := conn.Write(head.Bytes()); err != nil {
		return Answer{}, exchangeError(ctx, socket, err)
	}
	status, data, err := readResponse(bufio.NewReader(conn))
	if err != nil {
		return Answer{}, exchangeError(ctx, socket, err)
	}
	if status/100 != 2 {
		var e errorBody
		_ = json.Unmarshal(data, &e)
		if e.Error == "" {
			e.Error = strings.TrimSpace(string(data))
		}
		return Answer{}, &DaemonError{Status: status, Kind: e.Kind, Msg: e.Error}
	}
	var ans Answer
	if err := json.Unmarshal(data, &ans); err != nil {
		return Answer{}, fmt.Errorf("pathgrant daemon at %s: malformed answer: %w", socket, err)
	}
	if ans.Decision != "allow" && ans.Decision != "deny" {
		return Answer{}, fmt.Errorf("pathgrant daemon at %s: answer has no decision", socket)
	}
	return ans, nil
}

// dialUnix connects a blocking stream socket to path, with send and
// receive timeouts that end at deadline. While the daemon's accept queue
// is full the connect waits in the kernel (EAGAIN once that wait ends),
// and a refused one (ECONNREFUSED: the socket file is there but nobody
// accepts, as while the daemon restarts) is tried again after a short
// pause; both for up to busyWait in all. A daemon that is not there at all
// (ENOENT) fails at once.
func dialUnix(path string, deadline time.Time) (*os.File, error) {
	giveUp := time.Now().Add(busyWait)
	if deadline.Before(giveUp) {
		giveUp = deadline
	}
	pause := time.Millisecond
	for {
		if time.Until(deadline) <= 0 {
			return nil, fmt.Errorf("pathgrant daemon at %s: %w", path, context.DeadlineExceeded)
		}
		fd, err := connectUnix(path, giveUp)
		if err == nil {
			return socketFile(fd, path, deadline)
		}
		if (err != syscall.EAGAIN && err != syscall.ECONNREFUSED) || time.Now().Add(pause).After(giveUp) {
			return nil, dialError(path, err)
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// busyWait bounds how long a dial waits for a daemon whose accept queue
// is full, or that refuses connections for a moment.
const busyWait = 2 * time.Second

// connectUnix makes one connect to path, waiting in the kernel for room
// in a full accept queue until until. It returns the connected socket, or
// the connect's errno.
func connectUnix(path string, until time.Time) (int, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	// A zero timeout would mean no timeout: wait at least a millisecond.
	tv := syscall.NsecToTimeval(max(time.Until(until), time.Millisecond).Nanoseconds())
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv); err != nil {
		syscall.Close(fd)
		return -1, fmt.Errorf("socket timeout: %w", err)
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil && err != syscall.EISCONN { // EISCONN: an interrupted connect completed
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

// socketFile gives a connected socket send and receive timeouts that end
// at deadline.
func socketFile(fd int, path string, deadline time.Time) (*os.File, error) {
	tv := syscall.NsecToTimeval(max(time.Until(deadline), time.Millisecond).Nanoseconds())
	for _, opt := range []int{syscall.SO_RCVTIMEO, syscall.SO_SNDTIMEO} {
		if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, opt, &tv); err != nil {
			syscall.Close(fd)
			return nil, fmt.Errorf("socket timeout: %w", err)
		}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// dialError is why no connection was made: a queue that stayed full is a
// daemon that did not answer in time; a refused connect (a bare errno) is
// no daemon there.
func dialError(path string, err error) error {
	if err == syscall.EAGAIN {
		return fmt.Errorf("pathgrant daemon at %s: %w", path, context.DeadlineExceeded)
	}
	if _, connect := err.(syscall.Errno); !connect { // making the socket failed
		return fmt.Errorf("pathgrant daemon at %s: %w", path, err)
	}
	return &UnreachableError{Socket: path, Err: err}
}

// shutdown ends a blocked exchange early (the context was canceled).
func shutdown(f *os.File) error {
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return raw.Control(func(fd uintptr) { _ = syscall.Shutdown(int(fd), syscall.SHUT_RDWR) })
}

func exchangeError(ctx context.Context, socket string, err error) error {
	switch {
	case ctx.Err() != nil:
		err = ctx.Err()
	case errors.Is(err, syscall.EAGAIN):
		err = context.DeadlineExceeded // a socket timeout: the deadline passed
	}
	return fmt.Errorf("pathgrant daemon at %s: %w", socket, err)
}

// readResponse reads one HTTP/1.x response: the status code and the body,
// which is delimited by Content-Length, chunked, or the end of the stream.
func readResponse(r *bufio.Reader) (int, []byte, error) {
	line, err := readLine(r)
	if err != nil {
		return 0, nil, err
	}
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || err != nil || status < 100 || status > 999 {
		return 0, nil, fmt.Errorf("malformed status line %q", line)
	}
	length, chunked := -1, false
	for {
		h, err := readLine(r)
		if err != nil {
			return 0, nil, err
		}
		if h == "" {
			break
		}
		k, v, ok := strings.Cut(h, ":")
		if !ok {
			return 0, nil, fmt.Errorf("malformed header %q", h)
		}
		v = strings.TrimSpace(v)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "content-length":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return 0, nil, fmt.Errorf("malformed Content-Length %q", v)
			}
			length = n
		case "transfer-encoding":
			chunked = strings.EqualFold(v, "chunked")
		}
	}
	var body []byte
	switch {
	case chunked:
		body, err = readChunked(r)
	case length > maxAnswer:
		return 0, nil, fmt.Errorf("answer of %d bytes is too large", length)
	case length >= 0:
		body = make([]byte, length)
		_, err = io.ReadFull(r, body)
	default:
		body, err = io.ReadAll(io.LimitReader(r, maxAnswer))
	}
	return status, body, err
}

func readChunked(r *bufio.Reader) ([]byte, error) {
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
			return body, nil // trailers, if any, are not needed
		}
		if int64(len(body))+n > maxAnswer {
			return nil, errors.New("answer is too large")
		}
		chunk := make([]byte, n)
		if _, err := io.ReadFull(r, chunk); err != nil {
			return nil, err
		}
		body = append(body, chunk...)
		if _, err := readLine(r); err != nil {
			return nil, err
		}
	}
}

func readLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return "", err
	}
	if len(line) > 8<<10 {
		return "", errors.New("header line too long")
	}
	return strings.TrimRight(line, "\r\n"), nil
}
