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
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/godbus/dbus/v5"

	"pathgrant/appdirs"
	"pathgrant/devicepolicy"
	"pathgrant/grants"
	"pathgrant/ipc"
	"pathgrant/ipc/hooks"
	"pathgrant/sandbox"
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
	Getenv     appdirs.Getenv
	Version    func() string
	Executable func() (string, error)
	LookPath   func(file string) (string, error)
	Stat       func(name string) (fs.FileInfo, error)
	ReadFile   func(name string) ([]byte, error)
	// Health answers whether a daemon serves on socket.
	Health func(ctx context.Context, socket string) error
	// CheckStore opens the store at path, which runs its full integrity
	// check, and closes it; a store another process holds is
	// grants.ErrAlreadyRunning.
	CheckStore func(path string) error
	// Confinement is what the machine can confine commands with
	// (sandbox.Probe).
	Confinement func() sandbox.Confinement
	// BusName reports whether name has an owner on the session bus.
	BusName func(name string) (bool, error)
}

// systemDoctorEnv probes this machine.
func systemDoctorEnv() doctorEnv {
	return doctorEnv{
		Getenv: os.Getenv, Version: buildVersion, Executable: os.Executable, LookPath: exec.LookPath,
		Stat: os.Stat, ReadFile: os.ReadFile,
		Health: func(ctx context.Context, socket string) error {
			c := ipc.NewClient(socket)
			defer c.CloseIdle()
			return c.Health(ctx)
		},
		CheckStore:  checkStoreFile,
		Confinement: sandbox.Probe,
		BusName:     sessionBusName,
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
	daemon, up := checkDaemon(env, appdirs.SocketOr(socketFlag, env.Getenv))
	add(daemon, checkStore(env, storeFlag, up))
	add(confinementChecks(env)...)
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

// checkDaemon asks the socket for /v1/health.
func checkDaemon(env doctorEnv, socket string) (doctorCheck, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := env.Health(ctx, socket); err != nil {
		return doctorCheck{Name: "daemon", Status: doctorFail,
			Detail: fmt.Sprintf("not running: no answer on %s (%s)", socket, rootCause(err)),
			Fix:    "start it: pathgrant (the app), or pathgrant serve --headless"}, false
	}
	return doctorCheck{Name: "daemon", Status: doctorOK, Detail: "running on " + socket}, true
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

// buildVersion is the module version and VCS revision this binary was
// built from, and the Go release.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (" + runtime.Version() + ")"
	}
	v := []string{info.Main.Version}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		v = append(v, "rev "+rev[:min(12, len(rev))])
	}
	if settings["vcs.modified"] == "true" {
		v = append(v, "modified")
	}
	return strings.Join(append(v, info.GoVersion), ", ")
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

// confinementChecks report Landlock, bubblewrap, user namespaces and what
// they add up to with the device policy's confinement setting, then what
// confinement still leaves open.
func confinementChecks(env doctorEnv) []doctorCheck {
	c := env.Confinement()
	out := []doctorCheck{landlockCheck(c), bwrapCheck(c)}
	if c.Bwrap != "" {
		out = append(out, usernsCheck(c))
	}
	confined := confinedCheck(env, c)
	out = append(out, confined, approvalBoundary(confined.Status == doctorOK))
	for _, g := range c.Gaps {
		out = append(out, doctorCheck{Name: "confinement gap", Status: doctorInfo, Detail: g})
	}
	return out
}

func landlockCheck(c sandbox.Confinement) doctorCheck {
	if c.LandlockErr != "" {
		return doctorCheck{Name: "landlock", Status: doctorFail, Detail: "unavailable: " + oneLine(c.LandlockErr),
			Fix: fmt.Sprintf("run Linux 6.10 or later with Landlock enabled (ABI %d or later; 'landlock' in the lsm= boot parameter)", sandbox.MinLandlockABI)}
	}
	return doctorCheck{Name: "landlock", Status: doctorOK, Detail: fmt.Sprintf("ABI %d", c.LandlockABI)}
}

func bwrapCheck(c sandbox.Confinement) doctorCheck {
	if c.Bwrap == "" {
		return doctorCheck{Name: "bubblewrap", Status: doctorWarn, Detail: "bwrap is not on PATH: no private mount view",
			Fix: "install it: sudo apt-get install bubblewrap"}
	}
	return doctorCheck{Name: "bubblewrap", Status: doctorOK, Detail: c.Bwrap}
}

func usernsCheck(c sandbox.Confinement) doctorCheck {
	if !c.UserNS {
		return doctorCheck{Name: "user namespaces", Status: doctorWarn, Detail: "unprivileged user namespaces are off: bubblewrap cannot build its mount view",
			Fix: "allow them: sysctl kernel.unprivileged_userns_clone=1 (Ubuntu: kernel.apparmor_restrict_unprivileged_userns=0)"}
	}
	return doctorCheck{Name: "user namespaces", Status: doctorOK, Detail: "available to bubblewrap"}
}

// confinedHow says which agent shell commands are confined: those that
// go through pathgrant.
const confinedHow = "the MCP bridge's execute_shell_command and, by default, the shell tools of Claude Code, Codex, Gemini CLI and Pi (their hooks rewrite each allowed command to run under pathgrant exec); Cursor's cannot be rewritten and are checked by the guard alone"

// confinedCheck says whether agent shell commands run confined, and if
// not, why: the kernel cannot, or the device policy turned it off.
func confinedCheck(env doctorEnv, c sandbox.Confinement) doctorCheck {
	d := doctorCheck{Name: "confinement"}
	on, file, err := policyConfinement(env)
	switch {
	case err != nil:
		d.Status, d.Detail, d.Fix = doctorFail, oneLine(err.Error()), "correct the device policy file"
	case !on:
		d.Status, d.Detail = doctorWarn, "UNCONFINED: off in the device policy: agent shell commands run unconfined, the static guard is all there is"
		d.Fix = "set confinement = true in " + file
	case c.Level == sandbox.LevelNone:
		d.Status, d.Detail = doctorFail, "UNCONFINED: agent shell commands run unconfined: Landlock is unavailable"
		d.Fix = "see landlock above"
	default:
		d.Status, d.Detail = doctorOK, fmt.Sprintf("%s: agent shell commands run confined through %s", c.Level, confinedHow)
	}
	return d
}

// approvalBoundary says what keeps an agent from approving its own
// requests: confined commands cannot reach pathgrant's socket at all;
// unconfined ones can, and then the one-time approval code, shown only to
// the person, is the only barrier.
func approvalBoundary(confined bool) doctorCheck {
	if confined {
		return doctorCheck{Name: "who can approve", Status: doctorOK,
			Detail: "confined: agent commands cannot reach the decision channel; approvals need the person's one-time code"}
	}
	return doctorCheck{Name: "who can approve", Status: doctorInfo,
		Detail: "code-only: unconfined agent commands can reach the socket, so the one-time approval code is the only barrier (an agent that can read your screen could defeat it)"}
}

// policyConfinement reads the device policy's confinement setting and
// names the file that would change it.
func policyConfinement(env doctorEnv) (on bool, file string, err error) {
	loc, err := devicepolicy.Locate(env.Getenv)
	if err != nil {
		return false, "", err
	}
	dir := devicepolicy.Dir(env.Getenv, loc.Home)
	p, err := devicepolicy.Load(dir, loc)
	if err != nil {
		return false, "", err
	}
	return p.Confinement, filepath.Join(dir, devicepolicy.TOMLName), nil
}

// clientCommands are the commands each agent client is started with, to
// tell whether it is installed.
var clientCommands = map[string][]string{
	"claude": {"claude"}, "codex": {"codex"}, "gemini": {"gemini"}, "cursor": {"cursor-agent", "cursor"}, "pi": {"pi"},
}

// clientChecks report this build's hook binary, then for each agent
// client whether it is installed, whether its hooks are and run this
// build's hook, and whether its MCP configuration names pathgrant.
func clientChecks(env doctorEnv) []doctorCheck {
	home, err := appdirs.Home(env.Getenv)
	if err != nil {
		return []doctorCheck{{Name: "agents", Status: doctorFail, Detail: oneLine(err.Error()), Fix: "set HOME"}}
	}
	hook, hookCheck := thisHook(env)
	out := []doctorCheck{hookCheck}
	for _, name := range hooks.Clients() {
		c, err := hooks.LookupClient(name)
		if err != nil {
			continue
		}
		installed := clientInstalled(env, name)
		out = append(out, installedCheck(name, installed), hooksCheck(env, c, home, installed != "", hook))
		if name == "codex" {
			out = append(out, codexChecks(env, c, home)...)
		}
		out = append(out, mcpCheck(env, c, home))
	}
	return out
}

// thisHook finds the pathgrant-hook install-hooks would register: next to
// this binary, else on PATH.
func thisHook(env doctorEnv) (string, doctorCheck) {
	c := doctorCheck{Name: "pathgrant-hook"}
	dir := "DIR"
	if exe, err := env.Executable(); err == nil {
		dir = filepath.Dir(exe)
		p := filepath.Join(dir, "pathgrant-hook")
		if fi, err := env.Stat(p); err == nil && fi.Mode().IsRegular() {
			c.Status, c.Detail = doctorOK, p
			return p, c
		}
	}
	if p, err := env.LookPath("pathgrant-hook"); err == nil {
		c.Status, c.Detail = doctorOK, p
		return p, c
	}
	c.Status, c.Detail = doctorFail, "not found next to pathgrant or on PATH: agents' hooks cannot run"
	c.Fix = "build it: CGO_ENABLED=0 go build -o " + dir + "/ ./cmd/pathgrant-hook"
	return "", c
}

// clientInstalled is the client's command on PATH, or "".
func clientInstalled(env doctorEnv, name string) string {
	for _, cmd := range clientCommands[name] {
		if p, err := env.LookPath(cmd); err == nil {
			return p
		}
	}
	return ""
}

func installedCheck(name, path string) doctorCheck {
	if path == "" {
		return doctorCheck{Name: name, Status: doctorInfo, Detail: "not installed (" + strings.Join(clientCommands[name], ", ") + " not on PATH)"}
	}
	return doctorCheck{Name: name, Status: doctorOK, Detail: "installed: " + path}
}

// hooksCheck reads the client's user settings for the pathgrant hook and
// checks that it runs this build's pathgrant-hook. Missing hooks are a
// problem only for a client that is installed.
func hooksCheck(env doctorEnv, c hooks.Client, home string, installed bool, hook string) doctorCheck {
	d := doctorCheck{Name: c.Name + " hooks"}
	fix := "run: pathgrant install-hooks " + c.Name
	file := c.SettingsPath(env.Getenv, home, "")
	argv, err := installedHook(env, c.Name, file)
	switch {
	case err != nil:
		d.Status, d.Detail, d.Fix = doctorFail, oneLine(err.Error()), "correct or move aside "+file+", then "+fix
	case argv == nil && installed:
		d.Status, d.Detail, d.Fix = doctorFail, "not installed in "+file, fix
	case argv == nil:
		d.Status, d.Detail = doctorInfo, "not installed"
	default:
		return hookTarget(env, d, file, argv, hook, fix)
	}
	return d
}

// hookTarget checks that the registered hook command exists and is this
// build's pathgrant-hook, so a moved or rebuilt binary is noticed.
func hookTarget(env doctorEnv, d doctorCheck, file string, argv []string, hook, fix string) doctorCheck {
	path := argv[0]
	if !filepath.IsAbs(path) {
		if p, err := env.LookPath(path); err == nil {
			path = p
		}
	}
	fi, err := env.Stat(path)
	if err != nil {
		d.Status, d.Detail, d.Fix = doctorFail, fmt.Sprintf("%s runs %s, which does not exist", file, argv[0]), fix
		return d
	}
	if hook != "" {
		if hfi, err := env.Stat(hook); err == nil && !os.SameFile(fi, hfi) {
			d.Status, d.Fix = doctorFail, fix
			d.Detail = fmt.Sprintf("%s runs %s, not this build's %s", file, path, hook)
			return d
		}
	}
	d.Status, d.Detail = doctorOK, fmt.Sprintf("installed in %s: %s", file, hooks.CommandLine(argv))
	return d
}

// installedHook returns the pathgrant hook command registered in a
// client's settings file, nil when there is none (or no file).
func installedHook(env doctorEnv, client, file string) ([]string, error) {
	data, err := env.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", file, err)
	case client == "pi":
		return piHookArgv(file, data)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %w", file, err)
	}
	return findHookCommand(doc, client), nil
}

// findHookCommand walks a settings document for a "command" that runs
// `pathgrant-hook CLIENT`, the entries install-hooks writes.
func findHookCommand(v any, client string) []string {
	switch v := v.(type) {
	case map[string]any:
		if cmd, ok := v["command"].(string); ok {
			if w := hooks.CommandWords(cmd); len(w) >= 2 && filepath.Base(w[0]) == "pathgrant-hook" && w[1] == client {
				return w
			}
		}
		for _, x := range v {
			if w := findHookCommand(x, client); w != nil {
				return w
			}
		}
	case []any:
		for _, x := range v {
			if w := findHookCommand(x, client); w != nil {
				return w
			}
		}
	}
	return nil
}

// piHookArgv reads the hook argv from pathgrant's Pi extension, where
// install-hooks wrote it as a JSON array (`const HOOK = [...];`).
func piHookArgv(file string, data []byte) ([]string, error) {
	if !strings.HasPrefix(string(data), hooks.PiExtensionMarker) {
		return nil, nil
	}
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "const HOOK = ")
		if !ok {
			continue
		}
		var argv []string
		if err := json.Unmarshal([]byte(strings.TrimSuffix(rest, ";")), &argv); err != nil || len(argv) == 0 {
			return nil, fmt.Errorf("%s: unreadable hook command %q", file, rest)
		}
		return argv, nil
	}
	return nil, fmt.Errorf("%s: no hook command in pathgrant's extension", file)
}

// mcpCheck says whether the client's MCP configuration (where the client
// table says it is) registers the pathgrant server, the bridge.
// Informational: the hooks are what guards the client's own tools.
func mcpCheck(env doctorEnv, c hooks.Client, home string) doctorCheck {
	d := doctorCheck{Name: c.Name + " mcp", Status: doctorInfo}
	file := c.MCPPath(env.Getenv, home, "")
	if file == "" {
		d.Detail = "no MCP configuration for " + c.Name
		return d
	}
	data, err := env.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		d.Detail = fmt.Sprintf("cannot read %s: %s", file, oneLine(err.Error()))
		return d
	}
	if err == nil && c.BridgeConfigured(data) {
		d.Status, d.Detail = doctorOK, "pathgrant server configured in "+file
		return d
	}
	d.Detail = "no pathgrant server in " + file + ": pathgrant install-mcp " + c.Name + " registers it"
	return d
}

// codexRequirements is where an administrator's requirements for Codex
// live; they override the user's config.toml.
const codexRequirements = "/etc/codex/requirements.toml"

// codexChecks are the Codex lines that matter once pathgrant's hook is in
// its hooks.json, since Codex skips a hook without a word: whether the
// hooks feature is on (the user's config.toml and the administrator's
// requirements), and whether config.toml trusts each pathgrant hook with
// the hash of the hook as installed.
func codexChecks(env doctorEnv, c hooks.Client, home string) []doctorCheck {
	file := c.SettingsPath(env.Getenv, home, "")
	if argv, err := installedHook(env, c.Name, file); err != nil || argv == nil {
		return nil // the hooks line says what is wrong
	}
	cfg := filepath.Join(filepath.Dir(file), "config.toml")
	doc, err := readCodexConfig(env, cfg)
	if err != nil {
		return []doctorCheck{{Name: "codex config", Status: doctorFail, Detail: oneLine(err.Error()),
			Fix: "correct " + cfg + ", then run: pathgrant install-hooks codex"}}
	}
	req, err := readCodexConfig(env, codexRequirements)
	if err != nil {
		req = nil // an unreadable requirements file is reported by the feature line
	}
	return []doctorCheck{codexFeatureCheck(doc, req, cfg, err), codexTrustCheck(doc, file, cfg)}
}

// readCodexConfig parses a Codex TOML file; a missing file is empty.
func readCodexConfig(env doctorEnv, path string) (map[string]any, error) {
	data, err := env.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	doc := map[string]any{}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil, fmt.Errorf("%s is not valid TOML: %w", path, err)
	}
	return doc, nil
}

// codexHooksOff reports which key of doc's [features] switches hooks off
// (hooks, or its deprecated alias codex_hooks), "" when none does.
func codexHooksOff(doc map[string]any) string {
	features, _ := doc["features"].(map[string]any)
	for _, k := range []string{"hooks", "codex_hooks"} {
		if on, ok := features[k].(bool); ok && !on {
			return "[features] " + k + " = false"
		}
	}
	return ""
}

// codexFeatureCheck says whether Codex runs hooks at all: the user's
// config.toml may switch them off, and the administrator's requirements
// may force them off or allow only managed hooks.
func codexFeatureCheck(doc, req map[string]any, cfg string, reqErr error) doctorCheck {
	d := doctorCheck{Name: "codex hooks feature", Status: doctorFail}
	managedOnly, _ := req["allow_managed_hooks_only"].(bool)
	switch {
	case reqErr != nil:
		d.Detail = "cannot tell whether an administrator switched Codex's hooks off: " + oneLine(reqErr.Error())
		d.Fix = "ask your administrator to correct " + codexRequirements
	case codexHooksOff(req) != "":
		d.Detail = codexRequirements + " sets " + codexHooksOff(req) + ": Codex runs no hook, pathgrant's included"
		d.Fix = "ask your administrator to remove that line from " + codexRequirements
	case managedOnly:
		d.Detail = codexRequirements + " sets allow_managed_hooks_only = true: Codex skips the hooks in your hooks.json"
		d.Fix = "ask your administrator to add pathgrant's hook to the managed hooks, or to allow user hooks"
	case codexHooksOff(doc) != "":
		d.Detail = cfg + " sets " + codexHooksOff(doc) + ": Codex runs no hook, pathgrant's included"
		d.Fix = "run: pathgrant install-hooks codex (it switches the feature on), or set it to true in " + cfg
	default:
		d.Status, d.Detail = doctorOK, "on (not switched off in "+cfg+" nor in "+codexRequirements+")"
	}
	return d
}

// codexTrustCheck compares the hooks.state entries of config.toml with
// the trust each installed pathgrant hook needs (hooks.CodexTrusts, the
// keys and hashes install-hooks writes): a missing or stale entry makes
// Codex skip the hook.
func codexTrustCheck(doc map[string]any, hooksFile, cfg string) doctorCheck {
	d := doctorCheck{Name: "codex hook trust", Status: doctorFail, Fix: "run: pathgrant install-hooks codex (it writes the trust entries into " + cfg + ")"}
	want, err := hooks.CodexTrusts(hooksFile)
	if err != nil {
		d.Detail = oneLine(err.Error())
		return d
	}
	hooksTable, _ := doc["hooks"].(map[string]any)
	state, _ := hooksTable["state"].(map[string]any)
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		entry, _ := state[key].(map[string]any)
		got, _ := entry["trusted_hash"].(string)
		switch {
		case entry == nil:
			d.Detail = fmt.Sprintf("no trust entry for %s in %s: Codex skips that hook", key, cfg)
			return d
		case got != want[key]:
			d.Detail = fmt.Sprintf("%s trusts %s with %s, but the hook as installed hashes to %s: Codex skips it", cfg, key, got, want[key])
			return d
		}
	}
	d.Status, d.Fix = doctorOK, ""
	d.Detail = fmt.Sprintf("%d pathgrant hooks trusted in %s with their current hashes", len(keys), cfg)
	return d
}
