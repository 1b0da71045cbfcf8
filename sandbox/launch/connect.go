package launch

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Connect is the connect helper, `pathgrant-confine connect HOST PORT`:
// ssh's ProxyCommand inside a network namespace of its own (git over
// ssh, ProxyEnv). It asks pathgrant's proxy on the namespace's loopback
// at proxyPort for a tunnel to host:port (HTTP CONNECT), then copies
// stdin to it and it to stdout until both ends are done. A refusal is
// the proxy's one line on stderr and status 1. It links no net package:
// it is part of the lean inner-step binary.
func Connect(proxyPort int, host, port string, stdin io.Reader, stdout, stderr io.Writer) int {
	conn, err := dialLoopback(proxyPort)
	if err != nil {
		fmt.Fprintf(stderr, "pathgrant connect: pathgrant's proxy at 127.0.0.1:%d: %v\n", proxyPort, err)
		return 1
	}
	defer conn.Close()
	target := joinHostPort(host, port)
	if _, err := fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target); err != nil {
		fmt.Fprintf(stderr, "pathgrant connect: %v\n", err)
		return 1
	}
	br := bufio.NewReader(conn)
	if line, err := tunnelAnswer(br); err != nil {
		fmt.Fprintf(stderr, "pathgrant connect: %s: %v\n", target, err)
		return 1
	} else if line != "" {
		fmt.Fprintln(stderr, line)
		return 1
	}
	go func() {
		_, _ = io.Copy(conn, stdin)
		_ = syscall.Shutdown(int(conn.Fd()), syscall.SHUT_WR)
	}()
	_, _ = io.Copy(stdout, br)
	return 0
}

// tunnelAnswer reads the proxy's answer head: "" for a tunnel made, else
// the refusal the proxy gave (its body's first line, or its status).
func tunnelAnswer(br *bufio.Reader) (string, error) {
	status, err := br.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("no answer from the proxy: %w", err)
	}
	status = strings.TrimSpace(status)
	n := 0
	for {
		h, err := br.ReadString('\n')
		if err != nil {
			return "", fmt.Errorf("a malformed answer from the proxy: %w", err)
		}
		if h = strings.TrimSpace(h); h == "" {
			break
		}
		if k, v, _ := strings.Cut(h, ":"); strings.EqualFold(k, "Content-Length") {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if _, code, _ := strings.Cut(status, " "); strings.HasPrefix(code, "200") {
		return "", nil
	}
	body := make([]byte, min(max(n, 0), 4096))
	_, _ = io.ReadFull(br, body)
	if line, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n"); line != "" {
		return line, nil
	}
	return "pathgrant connect: the proxy refused: " + status, nil
}

// dialLoopback connects a TCP socket to 127.0.0.1:port, blocking.
func dialLoopback(port int) (*os.File, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(fd) // the helper starts nothing: no race to close it in
	for {
		err = syscall.Connect(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), "pathgrant-proxy"), nil
}

// joinHostPort is host:port with an IPv6 literal in brackets.
func joinHostPort(host, port string) string {
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		return "[" + host + "]:" + port
	}
	return host + ":" + port
}
