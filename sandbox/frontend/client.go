package frontend

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"pathgrant/sandbox/launch"
)

// callTimeout bounds one exchange with the daemon; maxAnswer the answer
// read (a prepared sandbox's rules are a few kilobytes).
const (
	callTimeout = 10 * time.Second
	maxAnswer   = 16 << 20
)

// DaemonError is a refusal the daemon answered with: its HTTP status and
// message.
type DaemonError struct {
	Status int
	Msg    string
}

func (e *DaemonError) Error() string { return fmt.Sprintf("%s (%d)", e.Msg, e.Status) }

// Fetch asks the daemon on socket to prepare req's sandbox, presenting
// the exec capability cap for the command text's hash.
func Fetch(socket, cap string, req launch.Request) (launch.Prepared, error) {
	var p launch.Prepared
	err := call(socket, launch.PathExec, cap, launch.CommandHash(launch.CommandText(req.Argv)), req, &p)
	return p, err
}

// Explain asks the daemon what to tell the agent about the refusals lines
// name, presenting p's report ticket; argv is the command p ran.
func Explain(socket string, p launch.Prepared, argv, lines []string) ([]string, error) {
	var out launch.Report
	err := call(socket, launch.PathReport, p.Ticket, launch.CommandHash(launch.CommandText(argv)), launch.Report{Lines: lines}, &out)
	return out.Lines, err
}

// call POSTs in as JSON to path over the Unix socket with the capability
// headers, and decodes a 200 answer into out. It speaks HTTP/1.0, so the
// answer ends when the daemon closes the connection.
func call(socket, path, cap, hash string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	conn, err := dial(socket)
	if err != nil {
		return err
	}
	defer conn.Close()
	var req bytes.Buffer
	fmt.Fprintf(&req, "POST %s HTTP/1.0\r\nHost: pathgrant\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", path, len(body))
	fmt.Fprintf(&req, "%s: %s\r\n%s: %s\r\n\r\n", launch.HeaderCapability, cap, launch.HeaderCommandHash, hash)
	req.Write(body)
	if _, err := conn.Write(req.Bytes()); err != nil {
		return fmt.Errorf("%s: send: %w", path, err)
	}
	answer, err := io.ReadAll(io.LimitReader(conn, maxAnswer))
	if err != nil {
		return fmt.Errorf("%s: read the answer: %w", path, err)
	}
	status, data, err := parseAnswer(answer)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if status != 200 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(data))
		}
		return &DaemonError{Status: status, Msg: e.Error}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: answer: %w", path, err)
	}
	return nil
}

// dial connects to the daemon's socket, with send and receive timeouts.
func dial(socket string) (*os.File, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	tv := unix.NsecToTimeval(callTimeout.Nanoseconds())
	for _, opt := range []int{unix.SO_RCVTIMEO, unix.SO_SNDTIMEO} {
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, opt, &tv); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("socket timeout: %w", err)
		}
	}
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: socket}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("connect to the pathgrant daemon at %s: %w (is it running?)", socket, err)
	}
	return os.NewFile(uintptr(fd), socket), nil
}

// parseAnswer splits an HTTP/1.x answer into its status and body.
func parseAnswer(answer []byte) (int, []byte, error) {
	head, body, ok := bytes.Cut(answer, []byte("\r\n\r\n"))
	if !ok {
		return 0, nil, fmt.Errorf("the daemon's answer ended early (%d bytes)", len(answer))
	}
	line, _, _ := bytes.Cut(head, []byte("\r\n"))
	fields := strings.Fields(string(line))
	if len(fields) < 2 || !strings.HasPrefix(fields[0], "HTTP/1.") {
		return 0, nil, fmt.Errorf("not an HTTP answer: %q", line)
	}
	status, err := strconv.Atoi(fields[1])
	if err != nil {
		return 0, nil, fmt.Errorf("not an HTTP status: %q", line)
	}
	return status, body, nil
}
