package cli

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"time"

	"pathgrant/appdirs"
	"pathgrant/daemon"
	"pathgrant/ipc"
)

// daemonProc is what doctor learns of the process serving the socket: who
// it is (from the socket itself), how it was started and with which
// environment (from /proc), which is where its folders and its output are.
type daemonProc struct {
	PID, UID int
	Headless bool
	Getenv   appdirs.Getenv // the daemon's environment, else doctor's
	Home     string
	Store    string // the store path the daemon resolved
}

// peerOf dials socket and asks the kernel who listens on it
// (ipc.PeerOf: SO_PEERCRED on Linux, LOCAL_PEERPID and LOCAL_PEERCRED on
// macOS): a pid the daemon cannot misreport, in doctor's PID namespace (0
// when the daemon is not visible from it).
func peerOf(socket string) (pid, uid int, err error) {
	conn, err := net.DialTimeout("unix", socket, time.Second)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close()
	p, err := ipc.PeerOf(conn)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", socket, err)
	}
	return int(p.PID), int(p.UID), nil
}

// inspectDaemon reads the daemon's command line and environment from
// /proc. The environment decides pathgrant's folders (XDG_STATE_HOME and
// the like); doctor's own stands in when the daemon's cannot be read.
// Where there is no /proc (macOS: procFiles) the daemon is still found
// by its socket, and the error says what could not be read.
func inspectDaemon(env doctorEnv, socket string) (daemonProc, error) {
	pid, uid, err := env.DaemonPeer(socket)
	switch {
	case err != nil:
		return daemonProc{}, err
	case pid == 0:
		return daemonProc{}, errors.New("the daemon runs in another PID namespace")
	}
	if err := procFiles(); err != nil {
		return daemonProc{}, fmt.Errorf("the daemon (pid %d): %w", pid, err)
	}
	d := daemonProc{PID: pid, UID: uid, Getenv: env.Getenv}
	if data, err := env.ReadFile(d.proc("environ")); err == nil {
		d.Getenv = environLookup(data)
	}
	argv, err := env.ReadFile(d.proc("cmdline"))
	if err != nil {
		return daemonProc{}, fmt.Errorf("read the daemon's command line: %w", err)
	}
	headless, store := daemonArgs(strings.Split(strings.TrimSuffix(string(argv), "\x00"), "\x00"))
	if store != "" && !filepath.IsAbs(store) {
		cwd, err := env.Readlink(d.proc("cwd"))
		if err != nil {
			return daemonProc{}, fmt.Errorf("the daemon's --store %s is relative and its working directory unknown: %w", store, err)
		}
		store = filepath.Join(cwd, store)
	}
	d.Headless = headless
	if d.Home, err = appdirs.Home(d.Getenv); err != nil {
		return daemonProc{}, fmt.Errorf("the daemon's environment: %w", err)
	}
	if d.Store, err = appdirs.Store(store, d.Getenv); err != nil {
		return daemonProc{}, fmt.Errorf("the daemon's environment: %w", err)
	}
	return d, nil
}

// detachedChecks report what the OS does not let pathgrant keep below an
// agent (daemon.MacDetachedGap): nothing on Linux, one line on macOS. It
// is a warning there when commands run unconfined: a detached process
// can then reach the socket and is taken for the person on the person's
// routes, where only the one-time approval code still stands in its way.
func detachedChecks(env doctorEnv, confined bool) []doctorCheck {
	if env.GOOS != "darwin" {
		return nil
	}
	if confined {
		return []doctorCheck{{Name: "detached processes", Status: doctorInfo,
			Detail: daemon.MacDetachedGap + "; the Seatbelt profile keeps them from pathgrant's socket"}}
	}
	return []doctorCheck{{Name: "detached processes", Status: doctorWarn,
		Detail: daemon.MacDetachedGap + ", and unconfined it can reach pathgrant's socket as if it were you: the approval code is the only barrier",
		Fix:    "keep confinement on (confinement = true in the device policy)"}}
}

func (d daemonProc) proc(name string) string { return fmt.Sprintf("/proc/%d/%s", d.PID, name) }

// environLookup looks variables up in a /proc/PID/environ image.
func environLookup(data []byte) appdirs.Getenv {
	vars := map[string]string{}
	for _, kv := range bytes.Split(data, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok {
			vars[k] = v
		}
	}
	return func(k string) string { return vars[k] }
}

// daemonArgs says from a daemon's argv whether it serves headless (and so
// logs approval codes) and which --store it was given: `pathgrant serve`
// is parsed as serve parses it; the app (pathgrant-ui) takes --store too.
func daemonArgs(argv []string) (headless bool, store string) {
	if len(argv) >= 2 && argv[1] == "serve" {
		if a, err := parseServeArgs(argv[2:]); err == nil {
			return a.headless, a.store
		}
		return false, ""
	}
	for i, arg := range argv {
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !strings.HasPrefix(arg, "-") || name != "store" {
			continue
		}
		if hasValue {
			return false, value
		}
		if i+1 < len(argv) {
			return false, argv[i+1]
		}
	}
	return false, ""
}
