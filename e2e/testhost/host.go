//go:build linux

package testhost

import (
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Host is a running test host. Its files (CAFile, KnownHosts, ClientKey)
// live in a t.TempDir and its namespace and veth go with the test.
type Host struct {
	Addr       netip.Addr   // 10.231.N.2, inside Namespace
	Gateway    netip.Addr   // 10.231.N.1, the machine's end of the veth
	Range      netip.Prefix // 10.231.N.0/30
	CAFile     string       // PEM of the CA that signed the HTTPS certificate
	KnownHosts string       // a known_hosts file naming Addr
	ClientKey  string       // the private key the ssh server accepts, for ssh -i
	Namespace  string       // the namespace's name, as `ip netns` shows it

	wgetrc string // a wgetrc trusting CAFile: GnuTLS wget reads no CA variable
	link   string // the veth end in the machine's namespace
}

// Start makes a namespace and veth pair, starts the servers inside it and
// registers their teardown with t.Cleanup. It first deletes what hosts of
// processes that died before their cleanups left (leftovers.go). It skips
// t when this process cannot make a network namespace, and fails it on any
// other error.
func Start(t testing.TB) *Host {
	t.Helper()
	if why := cannotMakeNamespace(); why != "" {
		t.Skip("test host: " + why)
	}
	if err := sweepLeftovers(); err != nil {
		t.Logf("test host: %v", err)
	}
	h, err := start(t)
	if err != nil {
		t.Fatalf("test host: %v", err)
	}
	return h
}

// start is Start's work. The temporary folder is made first, so its
// removal (a cleanup too) runs after the servers using it have stopped.
func start(t testing.TB) (*Host, error) {
	dir := t.TempDir()
	ns, err := makeNetns(t)
	if err != nil {
		return nil, err
	}
	h := &Host{
		Addr: ns.addr(), Gateway: ns.gateway(), Range: ns.rng, Namespace: ns.name,
		CAFile:     filepath.Join(dir, "ca.pem"),
		KnownHosts: filepath.Join(dir, "known_hosts"),
		ClientKey:  filepath.Join(dir, "client_key"),
		wgetrc:     filepath.Join(dir, "wgetrc"),
		link:       ns.hostLink,
	}
	c, err := h.writeTrust()
	if err != nil {
		return nil, err
	}
	keys, err := makeSSHKeys(h.Addr, h.KnownHosts, h.ClientKey)
	if err != nil {
		return nil, err
	}
	repo, err := optionalGitRepo(t, filepath.Join(dir, "git"))
	if err != nil {
		return nil, err
	}
	mux, err := h.mux(repo)
	if err != nil {
		return nil, err
	}
	return h, h.serve(t, ns, c, keys, repo, mux)
}

// writeTrust makes the CA and writes what a client needs to trust it: the
// CA's PEM and a wgetrc naming it, world-readable (with the folders on the
// way) so a command under another uid can trust the host too.
func (h *Host) writeTrust() (*certs, error) {
	c, err := makeCerts(h.Addr)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(h.CAFile)
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			return nil, fmt.Errorf("opening %s to every user: %w", d, err)
		}
	}
	if err := os.WriteFile(h.CAFile, c.caPEM, 0o644); err != nil {
		return nil, fmt.Errorf("writing the CA: %w", err)
	}
	rc := "ca_certificate = " + h.CAFile + "\ncheck_certificate = on\n"
	if err := os.WriteFile(h.wgetrc, []byte(rc), 0o644); err != nil {
		return nil, fmt.Errorf("writing the wgetrc: %w", err)
	}
	return c, nil
}

// optionalGitRepo makes the repository, or returns nil (logged) when the
// machine has no git: the host's other services do not need it.
func optionalGitRepo(t testing.TB, root string) (*gitRepo, error) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Logf("test host: no git on this machine, so no repository over HTTPS or ssh: %v", err)
		return nil, nil
	}
	return makeGitRepo(root)
}

// mux routes every HTTP path the host serves.
func (h *Host) mux(repo *gitRepo) (*http.ServeMux, error) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "hello from the test host\n")
	})
	mux.HandleFunc("GET /big/{n}", serveBig)
	if repo != nil {
		mux.Handle("/git/", repo.httpHandler())
	} else {
		mux.HandleFunc("/git/", noGit)
	}
	npm, err := newNPMRegistry(h.URL(""))
	if err != nil {
		return nil, err
	}
	npm.routes(mux)
	pypi, err := newPyPIIndex()
	if err != nil {
		return nil, err
	}
	pypi.routes(mux)
	gp, err := newGoProxy()
	if err != nil {
		return nil, err
	}
	gp.routes(mux)
	return mux, nil
}

// serve listens inside the namespace on :80, :443 and :22 and serves until
// the test's cleanup, which closes every listener and connection before
// the veth and namespace are deleted.
func (h *Host) serve(t testing.TB, ns *netns, c *certs, keys *sshKeys, repo *gitRepo, mux http.Handler) error {
	at := func(port int) string { return net.JoinHostPort(h.Addr.String(), strconv.Itoa(port)) }
	ls, err := listenIn(ns.path(), []string{at(80), at(443), at(22)})
	if err != nil {
		return err
	}
	// Two servers, not one: a server's HTTP/2 set-up happens once, by
	// whichever of Serve or ServeTLS runs first, and a Serve first would
	// leave HTTPS offering h2 with nothing to speak it.
	plain, secure := newHTTPServer(mux, nil), newHTTPServer(mux, &tls.Config{Certificates: []tls.Certificate{c.server}})
	sshSrv := newSSHServer(keys, repo, ls[2])
	t.Cleanup(func() {
		plain.Close()
		secure.Close()
		closeAll(ls)
		logFailure(t, sshSrv.close())
	})
	go plain.Serve(ls[0])
	go secure.ServeTLS(ls[1], "", "")
	return nil
}

// newHTTPServer serves mux, over TLS when tlsConfig is set.
func newHTTPServer(mux http.Handler, tlsConfig *tls.Config) *http.Server {
	return &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 30 * time.Second,
		TLSConfig:         tlsConfig,
		ErrorLog:          log.New(io.Discard, "", 0), // a client hanging up is no news
	}
}

// maxBig bounds /big/N so a typo cannot stream for hours.
const maxBig = 1 << 34

// serveBig writes N bytes for a throughput test, with a Content-Length so
// a client can tell a cut-short body from a whole one.
func serveBig(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.ParseInt(r.PathValue("n"), 10, 64)
	if err != nil || n < 0 || n > maxBig {
		http.Error(w, fmt.Sprintf("/big/N takes a byte count from 0 to %d", int64(maxBig)), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
	io.CopyN(w, zeros{}, n)
}

// zeros reads as endless zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// URL is the HTTPS URL of path on the host, by address.
func (h *Host) URL(path string) string { return "https://" + h.Addr.String() + path }

// GitSSH is the repository's ssh URL.
func (h *Host) GitSSH() string { return "ssh://git@" + h.Addr.String() + "/" + repoName }

// SSHOptions are ssh's options for the host, for GIT_SSH_COMMAND or an ssh
// command line: the client key alone, the host's known_hosts, no prompt
// (an unknown host or a refused key fails rather than waits).
func (h *Host) SSHOptions() string {
	return strings.Join([]string{
		"-i", shellQuote(h.ClientKey),
		"-o", shellQuote("UserKnownHostsFile=" + h.KnownHosts),
		"-o", "IdentitiesOnly=yes",
		"-o", "StrictHostKeyChecking=yes",
		"-o", "BatchMode=yes",
	}, " ")
}

// ToolEnv is the environment, as KEY=VALUE, that makes curl, wget, git,
// npm, pip and go trust the host's CA and fetch packages from its
// registries, with their caches and GOPATH under home. It sets no HOME and
// no GIT_SSH_COMMAND (pathgrant sets its own; see SSHOptions). Later
// entries of a command's Env win, so a caller appends its own after.
func (h *Host) ToolEnv(home string) []string {
	ca := h.CAFile
	return []string{
		"SSL_CERT_FILE=" + ca, // OpenSSL, Go
		"CURL_CA_BUNDLE=" + ca,
		"WGETRC=" + h.wgetrc,
		"GIT_SSL_CAINFO=" + ca,
		"NODE_EXTRA_CA_CERTS=" + ca,
		"npm_config_cafile=" + ca,
		"npm_config_registry=" + h.URL("/npm/"),
		"npm_config_cache=" + filepath.Join(home, ".npm"),
		"npm_config_update_notifier=false",
		"PIP_CERT=" + ca,
		"PIP_INDEX_URL=" + h.URL("/pypi/simple/"),
		"PIP_CACHE_DIR=" + filepath.Join(home, ".cache", "pip"),
		"PIP_DISABLE_PIP_VERSION_CHECK=1",
		"GOPROXY=" + h.URL("/go"),
		"GOSUMDB=off",
		"GOFLAGS=-modcacherw", // t.TempDir can remove a module cache
		"GOTOOLCHAIN=local",   // never fetch a toolchain
		"GOPATH=" + filepath.Join(home, "go"),
		"GOMODCACHE=" + filepath.Join(home, "go", "pkg", "mod"),
		"GOCACHE=" + filepath.Join(home, ".cache", "go-build"),
	}
}

// shellQuote quotes s for a POSIX shell when it needs it: GIT_SSH_COMMAND
// is run by one.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-=+,:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
