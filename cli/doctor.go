package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/godbus/dbus/v5"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/grants"
	"pathgrant/sandbox"
	"pathgrant/wire"
)

const doctorUsageText = "usage: pathgrant doctor [--json] [--socket PATH] [--store PATH]"

// The statuses of a doctor line. Only fail makes doctor exit 1: a warning
// is something pathgrant works without (a tray, notifications).
const (
	doctorOK   = "ok"
	doctorWarn = "warn"
	doctorFail = "fail"
	doctorInfo = "info"
)

// doctorCheck is one line of the report: what was looked at, how it
// stands, and for a problem the command or step that fixes it.
type doctorCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// doctorReport is what `pathgrant doctor --json` prints: one object a
// user can paste into a bug report.
type doctorReport struct {
	OK      bool          `json:"ok"`
	Version string        `json:"version"`
	Checks  []doctorCheck `json:"checks"`
}

// doctorEnv is every probe doctor runs, as functions, so that a test can
// play any machine: a daemon up or down, hooks installed or not, a kernel
// with or without Landlock, a desktop with or without a tray.
type doctorEnv struct {
	// GOOS is the system doctor describes ("" reads as Linux).
	GOOS       string
	Getenv     appdirs.Getenv
	Version    func() string
	Executable func() (string, error)
	LookPath   func(file string) (string, error)
	Stat       func(name string) (fs.FileInfo, error)
	ReadFile   func(name string) ([]byte, error)
	ReadDir    func(name string) ([]fs.DirEntry, error)
	// Getwd is the folder doctor runs in, where it looks for what a
	// project brings to an agent client (OpenCode's plugins).
	Getwd func() (string, error)
	// Health answers whether a daemon serves on socket, and its state.
	Health func(ctx context.Context, socket string) (wire.Health, error)
	// CheckStore opens the store at path, which runs its full integrity
	// check, and closes it; a store another process holds is
	// grants.ErrAlreadyRunning.
	CheckStore func(path string) error
	// Confinement is what the machine can confine commands with
	// (sandbox.Probe).
	Confinement func() sandbox.Confinement
	// BusName reports whether name has an owner on the session bus.
	BusName func(name string) (bool, error)
	// DaemonPeer is the pid and uid of the process listening on socket
	// (peerOf); Readlink reads the daemon's /proc links.
	DaemonPeer func(socket string) (pid, uid int, err error)
	Readlink   func(name string) (string, error)
	// Sessions lists the sessions the daemon on socket holds (the
	// person's route: an agent is refused); nil asks nothing.
	Sessions func(ctx context.Context, socket string) ([]wire.SessionInfo, error)
}

// systemDoctorEnv probes this machine.
func systemDoctorEnv() doctorEnv {
	return doctorEnv{
		GOOS: runtime.GOOS, Getenv: os.Getenv, Version: versionLine, Executable: os.Executable, LookPath: exec.LookPath,
		Stat: os.Stat, ReadFile: os.ReadFile, ReadDir: os.ReadDir, Getwd: os.Getwd,
		Health: func(ctx context.Context, socket string) (wire.Health, error) {
			c := apiclient.New(socket)
			defer c.CloseIdle()
			return c.HealthInfo(ctx)
		},
		CheckStore:  checkStoreFile,
		Confinement: sandbox.Probe,
		BusName:     sessionBusName,
		DaemonPeer:  peerOf,
		Readlink:    os.Readlink,
		Sessions: func(ctx context.Context, socket string) ([]wire.SessionInfo, error) {
			c := apiclient.New(socket)
			defer c.CloseIdle()
			return c.Sessions(ctx)
		},
	}
}

// runDoctor implements `pathgrant doctor`: exit 0 when everything
// pathgrant needs is in place, 1 when something is not (each problem's
// line says how to fix it), 2 on usage errors.
func runDoctor(args []string, stdout, stderr io.Writer) int {
	return runDoctorWith(args, stdout, stderr, systemDoctorEnv())
}

func runDoctorWith(args []string, stdout, stderr io.Writer, env doctorEnv) int {
	fs := newFlags("doctor")
	asJSON := fs.Bool("json", false, "one JSON object")
	socket := fs.String("socket", "", socketHelp)
	store := fs.String("store", "", storeHelp)
	pos, err := parseFlags(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, doctorUsageText)
		return exitOK
	case err == nil && len(pos) > 0:
		err = usagef("unexpected argument %q", pos[0])
	}
	if err != nil {
		return fail(stderr, "doctor", usagef("%s (%s)", err, doctorUsageText))
	}
	rep := diagnose(env, *socket, *store)
	if err := writeDoctor(stdout, rep, *asJSON); err != nil {
		return fail(stderr, "doctor", err)
	}
	if !rep.OK {
		return exitFail
	}
	return exitOK
}

// diagnose runs every check in the order a reader wants them: what runs,
// what protects, what shows prompts, then each agent client.
func diagnose(env doctorEnv, socketFlag, storeFlag string) doctorReport {
	rep := doctorReport{Version: env.Version()}
	add := func(cs ...doctorCheck) { rep.Checks = append(rep.Checks, cs...) }
	add(doctorCheck{Name: "version", Status: doctorInfo, Detail: rep.Version})
	socket := appdirs.SocketOr(socketFlag, env.Getenv)
	daemon, up := checkDaemon(env, socket)
	add(daemon...)
	if up {
		add(daemonOutputChecks(env, socket)...)
	}
	add(checkStore(env, storeFlag, up))
	add(confinementChecks(env, socket)...)
	add(networkChecks(env)...)
	add(rootPlaceChecks(env, socket, up)...)
	add(privacyChecks(env)...)
	add(checkBus(env, "notifications", "org.freedesktop.Notifications",
		"the app cannot notify; prompts still open as windows",
		"start a notification server (dunst, mako, your desktop's), or decide with 'pathgrant pending'"))
	add(checkBus(env, "tray", "org.kde.StatusNotifierWatcher",
		"the app runs without an icon",
		"enable a StatusNotifierItem tray (GNOME: the AppIndicator extension), or open the windows with 'pathgrant settings'"))
	add(clientChecks(env)...)
	rep.OK = true
	for _, c := range rep.Checks {
		if c.Status == doctorFail {
			rep.OK = false
		}
	}
	return rep
}

// checkDaemon asks the socket for /v1/health: whether the daemon runs,
// and whether a check after a confined command failed (it holds its
// session's next command).
func checkDaemon(env doctorEnv, socket string) ([]doctorCheck, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	h, err := env.Health(ctx, socket)
	if err != nil {
		return []doctorCheck{{Name: "daemon", Status: doctorFail,
			Detail: fmt.Sprintf("not running: no answer on %s (%s)", socket, rootCause(err)),
			Fix:    "start it: pathgrant (the app), or pathgrant serve --headless"}}, false
	}
	out := []doctorCheck{{Name: "daemon", Status: doctorOK, Detail: "running on " + socket}}
	if h.FailedChecks > 0 {
		out = append(out, doctorCheck{Name: "after-run checks", Status: doctorFail,
			Detail: countOf(h.FailedChecks, "check") + " of what a confined command left in a workspace did not finish: that session's next command is refused until one passes",
			Fix:    "read why in the audit log (kind after-run) or the daemon's log; make the workspace readable to its owner, then retry the command or end the session"})
	}
	return out, true
}

// rootCause is the system error at the bottom of err when there is one
// ("connect: no such file or directory" says it all), else err.
func rootCause(err error) string {
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Error()
	}
	return oneLine(err.Error())
}

// checkStore reports the store's path and size and, when no daemon holds
// it, its integrity. A daemon checked it when it opened it and holds its
// lock, so doctor does not open it then.
func checkStore(env doctorEnv, storeFlag string, daemonUp bool) doctorCheck {
	c := doctorCheck{Name: "store"}
	path, err := appdirs.Store(storeFlag, env.Getenv)
	if err != nil {
		c.Status, c.Detail, c.Fix = doctorFail, oneLine(err.Error()), "set HOME, or give --store"
		return c
	}
	fi, err := env.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Status, c.Detail = doctorOK, path+": not created yet (the daemon creates it when it first starts)"
		return c
	case err != nil:
		c.Status, c.Detail = doctorFail, oneLine(err.Error())
		return c
	}
	c.Detail = fmt.Sprintf("%s, %d bytes", path, fi.Size())
	if daemonUp {
		c.Status, c.Detail = doctorOK, c.Detail+"; integrity not checked here: the daemon holds the store (it checked it when it opened it)"
		return c
	}
	return storeIntegrity(c, env.CheckStore(path))
}

func storeIntegrity(c doctorCheck, err error) doctorCheck {
	var corrupt *grants.CorruptError
	switch {
	case err == nil:
		c.Status, c.Detail = doctorOK, c.Detail+", integrity checked"
	case errors.Is(err, grants.ErrAlreadyRunning):
		c.Status, c.Detail = doctorWarn, c.Detail+"; integrity not checked: another process holds the store but does not answer on the socket"
		c.Fix = "stop the other pathgrant process, or point doctor at its socket with --socket"
	case errors.As(err, &corrupt):
		c.Status, c.Detail = doctorFail, c.Detail+": corrupt ("+oneLine(fmt.Sprint(corrupt.Cause))+")"
		c.Fix = fmt.Sprintf("mv %s %s.corrupt, then start pathgrant again", corrupt.Path, corrupt.Path)
	default:
		c.Status, c.Detail = doctorFail, c.Detail+": "+oneLine(err.Error())
	}
	return c
}

// checkStoreFile opens the store without creating it or watching it; Open
// runs the integrity check.
func checkStoreFile(path string) error {
	s, err := grants.Open(path, grants.Options{NoWatch: true, NoCreate: true, LockTimeout: 200 * time.Millisecond})
	if err != nil {
		return err
	}
	return s.Close()
}

// checkBus looks for a service on the session bus; without it the app
// still works, so its absence is a warning.
func checkBus(env doctorEnv, name, busName, without, fix string) doctorCheck {
	has, err := env.BusName(busName)
	switch {
	case err != nil:
		return doctorCheck{Name: name, Status: doctorWarn, Fix: fix,
			Detail: fmt.Sprintf("no session bus (%s): %s", oneLine(err.Error()), without)}
	case !has:
		return doctorCheck{Name: name, Status: doctorWarn, Fix: fix,
			Detail: fmt.Sprintf("no %s on the session bus: %s", busName, without)}
	}
	return doctorCheck{Name: name, Status: doctorOK, Detail: busName + " is on the session bus"}
}

// sessionBusName asks the session bus whether name has an owner, on a
// private connection doctor closes. It never starts a bus (godbus would
// run dbus-launch when none is named).
func sessionBusName(name string) (bool, error) {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		bus := filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "bus")
		if fi, err := os.Stat(bus); os.Getenv("XDG_RUNTIME_DIR") == "" || err != nil || fi.Mode().Type() != fs.ModeSocket {
			return false, errors.New("DBUS_SESSION_BUS_ADDRESS is unset and there is no $XDG_RUNTIME_DIR/bus")
		}
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false, err
	}
	defer conn.Close()
	var has bool
	err = conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has)
	if err != nil {
		return false, fmt.Errorf("ask the session bus for %s: %w", name, err)
	}
	return has, nil
}

// writeDoctor prints the report: aligned `name  status  detail` lines, a
// problem's fix after a dash; or one JSON object.
func writeDoctor(w io.Writer, rep doctorReport, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range rep.Checks {
		line := c.Detail
		if c.Fix != "" {
			line += " — " + c.Fix
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, c.Status, line)
	}
	return tw.Flush()
}
