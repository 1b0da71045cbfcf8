// Package daemon starts and stops the pathgrant daemon's process parts: it
// takes the socket and the store, builds the ipc configuration, and shuts
// everything down in order. `pathgrant serve` runs it; the tray app is
// its client (applink).
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"pathgrant/appdirs"
	"pathgrant/devicepolicy"
	"pathgrant/devicepolicy/watch"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/ipc"
	"pathgrant/sandbox"
	"pathgrant/sandbox/heldfs"
)

// ShutdownTimeout bounds how long a stopping daemon waits for requests in
// flight before it closes the store anyway.
const ShutdownTimeout = 5 * time.Second

// Daemon is what a running daemon owns: its socket and its store, and the
// paths, home folder and environment its device policy is built from.
type Daemon struct {
	Socket, StorePath, Home string
	Getenv                  appdirs.Getenv
	Listener                net.Listener
	Store                   *grants.Store
	// Policy is the device policy file, reloaded as it changes;
	// Confinement what this machine offers confined commands. Together
	// they decide whether agents' shell commands run confined.
	Policy      *watch.Watcher
	Confinement sandbox.Confinement
	stopWatch   context.CancelFunc
	// Reaper keeps what the tool calls start below the daemon, detached
	// or not, and reaps it (subreaper.go).
	Reaper *Subreaper
	// Held is the held-open file system the views bind the approvable
	// roots from (held.go), nil where it could not be mounted: HeldErr
	// says why, and opens are held by the seccomp supervisor.
	Held    *heldfs.Server
	HeldErr error
}

// Start resolves the paths (empty flags mean the defaults, from the
// process environment) and takes the socket, then the store: a daemon
// already running is found by its socket before any store is touched, and
// either one held by another daemon is an "already running" error. The
// daemon then becomes the child subreaper of what its tools start.
func Start(socket, store string, log *slog.Logger) (*Daemon, error) {
	d := &Daemon{Getenv: os.Getenv, Socket: appdirs.SocketOr(socket, os.Getenv)}
	var err error
	if d.StorePath, err = appdirs.Store(store, d.Getenv); err != nil {
		return nil, err
	}
	if d.Home, err = appdirs.Home(d.Getenv); err != nil {
		return nil, err
	}
	if d.Listener, d.Store, err = open(d.Socket, d.StorePath, log); err != nil {
		return nil, err
	}
	if err := d.watchPolicy(log); err != nil {
		d.Listener.Close()
		d.Store.Close()
		return nil, err
	}
	d.mountHeld(log)
	if d.Reaper, err = StartSubreaper(log); err != nil {
		if d.Held != nil {
			d.Held.Close()
		}
		d.stopWatch()
		d.Listener.Close()
		d.Store.Close()
		return nil, err
	}
	return d, nil
}

// watchPolicy loads the device policy file and keeps it current, and
// probes the machine's confinement. A policy file that does not load stops
// the daemon: it never runs with a policy the user did not write. An
// unconfined machine or setting is logged loudly.
func (d *Daemon) watchPolicy(log *slog.Logger) error {
	env, err := devicepolicy.Locate(d.Getenv)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.Policy, err = watch.Watch(ctx, devicepolicy.Dir(d.Getenv, env.Home), env, log, func(p devicepolicy.Policy) {
		logConfinement(log, d.Confinement, p)
	})
	if err != nil {
		cancel()
		return err
	}
	d.stopWatch = cancel
	d.Confinement = sandbox.Probe()
	logConfinement(log, d.Confinement, d.Policy.Policy())
	return nil
}

// logConfinement says how agents' shell commands run: a warning when
// they run unconfined.
func logConfinement(log *slog.Logger, c sandbox.Confinement, p devicepolicy.Policy) {
	switch {
	case !p.Confinement:
		log.Warn("UNCONFINED: the device policy turns confinement off (confinement = false): agent commands are not confined")
	case c.Level == sandbox.LevelNone:
		log.Warn("UNCONFINED: this machine cannot confine agent commands", "why", c.LandlockErr)
	default:
		log.Info("agent shell commands run confined", "level", c.Level, "gaps", c.Gaps)
	}
}

func open(sock, storePath string, log *slog.Logger) (net.Listener, *grants.Store, error) {
	ln, err := listen(sock, log)
	if errors.Is(err, ipc.ErrAlreadyRunning) {
		return nil, nil, fmt.Errorf("already running: a daemon answers on %s", sock)
	}
	if err != nil {
		return nil, nil, err
	}
	store, err := grants.Open(storePath, grants.Options{SweepEvery: time.Minute, Logger: log})
	if err != nil {
		ln.Close() // removes the socket file this process created, never a handed one
		if errors.Is(err, grants.ErrAlreadyRunning) {
			return nil, nil, fmt.Errorf("already running: another pathgrant process holds the store %s", storePath)
		}
		return nil, nil, err
	}
	return ln, store, nil
}

// listen takes the socket a supervisor handed over (systemd's socket
// activation: the socket stays bound across the daemon's restarts, so a
// call made meanwhile waits in its backlog), else binds it as `pathgrant
// serve` run by hand does. A handed socket that is not pathgrant's is an
// error, never a reason to bind another.
func listen(sock string, log *slog.Logger) (net.Listener, error) {
	ln, err := ipc.Inherited(sock)
	switch {
	case err == nil:
		log.Info("serving the socket handed over by the supervisor", "socket", sock)
		return ln, nil
	case !errors.Is(err, ipc.ErrNotHandedOver):
		return nil, err
	}
	return ipc.Listen(sock)
}

// Config is the daemon's ipc configuration with the given approver.
// Every agent command the daemon confines (a hook's rewritten command,
// `pathgrant exec --session`, the tool routes' execute_shell_command) gets
// its sandbox from the one sandbox.Launcher (package ipc cannot build it
// itself: package sandbox imports it); the tool routes' inner step is the
// pathgrant binary this daemon runs as, or the one next to it.
func (d *Daemon) Config(log *slog.Logger, approver engine.Approver) ipc.Config {
	device := engine.DefaultDevicePolicy(d.Getenv, d.Home, d.StorePath, d.Socket)
	exe, err := os.Executable()
	if err == nil {
		exe = sandbox.FrontEndBinary(exe)
	}
	if exe == "" {
		log.Warn("no pathgrant-confine or pathgrant binary next to the daemon's: execute_shell_command is refused", "err", err)
	}
	cfg := ipc.Config{Store: d.Store, Device: device, Home: d.Home, Getenv: d.Getenv,
		Logger: log, Approver: approver, Confinement: d.Confinement.Level,
		Launcher: sandbox.Launcher{Confinement: d.Confinement, Getenv: d.Getenv, Home: d.Home, Socket: d.Socket, Exe: exe}}
	if d.Held != nil {
		l := cfg.Launcher.(sandbox.Launcher)
		l.HeldView = d.Held.Dir()
		cfg.Launcher, cfg.Held = l, d.Held
	}
	if d.Policy != nil {
		// Every setting of the file is read where it is used, so each
		// one is live on reload.
		cfg.DeviceFile = d.Policy.Policy
	}
	return cfg
}

// Serve runs srv on the daemon's socket in the background; the channel
// yields Serve's result.
func (d *Daemon) Serve(srv *ipc.Server) <-chan error {
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(d.Listener) }()
	return serveErr
}

// Stop waits for ctx to end (a signal, or the app quitting) or the server
// to fail, then shuts down within ShutdownTimeout and closes the store.
func (d *Daemon) Stop(ctx context.Context, srv *ipc.Server, serveErr <-chan error, log *slog.Logger) error {
	var err error
	select {
	case <-ctx.Done():
		log.Info("stopping")
	case err = <-serveErr:
		serveErr = nil
		if err != nil {
			err = fmt.Errorf("serve: %w", err)
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if serr := srv.Shutdown(sctx); serr != nil {
		err = errors.Join(err, fmt.Errorf("shut down: %w", serr))
	}
	if serveErr != nil {
		if serr := <-serveErr; serr != nil {
			err = errors.Join(err, fmt.Errorf("serve: %w", serr))
		}
	}
	if d.stopWatch != nil {
		d.stopWatch()
	}
	if d.Reaper != nil {
		d.Reaper.Stop()
	}
	if d.Held != nil {
		if herr := d.Held.Close(); herr != nil {
			err = errors.Join(err, herr)
		}
	}
	if cerr := d.Store.Close(); cerr != nil {
		err = errors.Join(err, cerr)
	}
	if err == nil {
		log.Info("stopped")
	}
	return err
}
