//go:build linux

package testhost

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// sshCloseWait bounds how long closing waits for sessions to end: their
// git processes are killed, so they end at once unless something is wrong,
// and a cleanup must not hang a test run.
const sshCloseWait = 10 * time.Second

// sshKeys are the host's key and the one client key it accepts.
type sshKeys struct {
	host   ssh.Signer
	client ssh.PublicKey
}

// makeSSHKeys makes fresh ed25519 keys, writes the host's known_hosts line
// for addr to knownHostsFile and the client's private key to clientKeyFile
// (0600: ssh refuses a key others can read).
func makeSSHKeys(addr netip.Addr, knownHostsFile, clientKeyFile string) (*sshKeys, error) {
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("making the ssh host key: %w", err)
	}
	host, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		return nil, fmt.Errorf("using the ssh host key: %w", err)
	}
	line := knownhosts.Line([]string{knownhosts.Normalize(addr.String())}, host.PublicKey()) + "\n"
	if err := os.WriteFile(knownHostsFile, []byte(line), 0o644); err != nil {
		return nil, fmt.Errorf("writing known_hosts: %w", err)
	}
	client, err := writeClientKey(clientKeyFile)
	if err != nil {
		return nil, err
	}
	return &sshKeys{host: host, client: client}, nil
}

// writeClientKey makes the client key pair, writes its private half in
// OpenSSH's format and returns the public half.
func writeClientKey(file string) (ssh.PublicKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("making the ssh client key: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "pathgrant test host client")
	if err != nil {
		return nil, fmt.Errorf("encoding the ssh client key: %w", err)
	}
	if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
		return nil, fmt.Errorf("writing the ssh client key: %w", err)
	}
	client, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("using the ssh client key: %w", err)
	}
	return client, nil
}

// sshServer is the host's ssh server: it accepts the one client key and
// runs git-upload-pack on the one repository, and refuses everything else
// (shells, other commands, forwarding), so a test learns that git over ssh
// works and nothing more.
type sshServer struct {
	config *ssh.ServerConfig
	repo   *gitRepo // nil when the machine has no git
	l      net.Listener
	ctx    context.Context // ended on close: it kills running git processes
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// newSSHServer serves on l until close.
func newSSHServer(keys *sshKeys, repo *gitRepo, l net.Listener) *sshServer {
	config := &ssh.ServerConfig{
		PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			if bytes.Equal(key.Marshal(), keys.client.Marshal()) {
				return &ssh.Permissions{}, nil
			}
			return nil, errors.New("not the test host's client key")
		},
	}
	config.AddHostKey(keys.host)
	ctx, cancel := context.WithCancel(context.Background())
	s := &sshServer{config: config, repo: repo, l: l, ctx: ctx, cancel: cancel, conns: map[net.Conn]struct{}{}}
	s.wg.Go(s.serve)
	return s
}

// close stops accepting, drops every connection, kills their git
// processes and waits (bounded) for the handlers to end.
func (s *sshServer) close() error {
	s.mu.Lock()
	s.closed = true
	s.l.Close()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.cancel()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(sshCloseWait):
		return fmt.Errorf("ssh sessions still running %v after close", sshCloseWait)
	}
}

// serve accepts until the listener is closed.
func (s *sshServer) serve() {
	for {
		c, err := s.l.Accept()
		if err != nil {
			return
		}
		if !s.track(c) {
			c.Close()
			return
		}
		s.wg.Go(func() { s.handleConn(c) })
	}
}

// track records c so close can drop it; false once closing has begun.
func (s *sshServer) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

// handleConn runs one connection's handshake and sessions.
func (s *sshServer) handleConn(c net.Conn) {
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	conn, chans, reqs, err := ssh.NewServerConn(c, s.config)
	if err != nil {
		return
	}
	defer conn.Close()
	s.wg.Go(func() { ssh.DiscardRequests(reqs) })
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.Prohibited, "only sessions")
			continue
		}
		ch, chReqs, err := nc.Accept()
		if err != nil {
			continue
		}
		s.wg.Go(func() { s.handleSession(ch, chReqs) })
	}
}

// handleSession answers a session's requests: GIT_PROTOCOL (git's
// protocol v2 asks for it) and one upload-pack exec are accepted, every
// other request refused. Requests keep being answered while git runs: an
// unread request would stall the whole connection.
func (s *sshServer) handleSession(ch ssh.Channel, reqs <-chan *ssh.Request) {
	var env []string
	started := false
	for req := range reqs {
		switch {
		case req.Type == "env" && !started:
			name, value, ok := parseEnv(req.Payload)
			ok = ok && name == "GIT_PROTOCOL"
			if ok {
				env = append(env, name+"="+value)
			}
			req.Reply(ok, nil)
		case req.Type == "exec" && !started && s.repo != nil && isUploadPack(req.Payload):
			started = true
			req.Reply(true, nil)
			s.wg.Go(func() { s.uploadPack(ch, env) })
		default:
			req.Reply(false, nil)
		}
	}
	if !started {
		ch.Close()
	}
}

// uploadPack runs git-upload-pack on the repository with the channel as
// its stdio, then reports its exit status and closes the channel.
func (s *sshServer) uploadPack(ch ssh.Channel, env []string) {
	defer ch.Close()
	cmd := exec.CommandContext(s.ctx, s.repo.bin, "upload-pack", s.repo.dir())
	cmd.Env = append(append([]string{}, s.repo.env...), env...)
	cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
	// Stdin is copied by hand: exec's own copy would keep Wait waiting
	// for a client that never closes its side.
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintf(ch.Stderr(), "test host: starting git upload-pack: %v\n", err)
		sendExitStatus(ch, 127)
		return
	}
	s.wg.Go(func() { io.Copy(stdin, ch); stdin.Close() })
	err = cmd.Wait()
	sendExitStatus(ch, exitStatus(err))
}

// exitStatus is the status ssh reports for a finished command.
func exitStatus(err error) uint32 {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return uint32(ee.ExitCode())
	default:
		return 255
	}
}

// sendExitStatus sends the exit-status request (RFC 4254 6.10).
func sendExitStatus(ch ssh.Channel, status uint32) {
	ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{status}))
}

// parseEnv reads an env request's payload (RFC 4254 6.4).
func parseEnv(payload []byte) (name, value string, ok bool) {
	var p struct{ Name, Value string }
	if err := ssh.Unmarshal(payload, &p); err != nil {
		return "", "", false
	}
	return p.Name, p.Value, true
}

// isUploadPack reports whether an exec request asks for git-upload-pack on
// the repository, in the forms git sends: `git-upload-pack '/repo.git'`
// for an ssh:// URL, 'repo.git' for scp-like syntax, and `git upload-pack`
// when a client spells it as a subcommand.
func isUploadPack(payload []byte) bool {
	var p struct{ Command string }
	if err := ssh.Unmarshal(payload, &p); err != nil {
		return false
	}
	var arg string
	var ok bool
	if arg, ok = strings.CutPrefix(p.Command, "git-upload-pack "); !ok {
		if arg, ok = strings.CutPrefix(p.Command, "git upload-pack "); !ok {
			return false
		}
	}
	arg = unquote(strings.TrimSpace(arg))
	arg = strings.TrimSuffix(strings.TrimPrefix(arg, "/"), "/")
	return arg == repoName
}

// unquote strips one pair of matching single or double quotes.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}
