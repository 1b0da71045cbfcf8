package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"pathgrant/devicepolicy"
	"pathgrant/sandbox/launch"
	"pathgrant/sandbox/rules"
	"pathgrant/wire"
)

// Launcher prepares, in the daemon, the sandbox of every agent command
// (Launcher), whichever door it came through: a hook's rewritten
// command, `pathgrant exec --session`, the tool routes' and `pathgrant
// mcp`'s execute_shell_command, the app's in-process calls. It is the one
// place that decides whether a command is confined and at which level
// (the device policy's switch, then the machine's level): the view and
// the rules are built here, where the caches are warm, and run by the one
// front end (frontend.Run).
type Launcher struct {
	// Confinement is what this machine offers (Probe).
	Confinement Confinement
	// Getenv and Home are the daemon's environment and home folder, Socket
	// its socket: the places they name are hidden as well as those the
	// command's own environment names.
	Getenv func(string) string
	Home   string
	Socket string
	// Exe is the pathgrant binary whose inner step the daemon's own
	// commands (the tool routes' execute_shell_command) run: a request
	// that names no front end binary gets it (FrontEndBinary).
	Exe string
	// HeldView is where the daemon's held-open file system is mounted
	// (package sandbox/heldfs): a view's approvable roots are bound from
	// it, and no seccomp filter holds the command's opens. "" where it
	// could not be mounted: opens are held by the seccomp supervisor.
	HeldView string
}

// errUnconfinable refuses a command on a machine that cannot confine.
var errUnconfinable = errors.New("this machine cannot confine commands (no Landlock): refusing to run it unconfined")

// Launch prepares req's sandbox for the session pol (pol.Used included)
// Launch is a prepared sandbox and, for explaining refusals later, which
// of the paths a failed command names lie outside its view.
type Launch struct {
	Prepared wire.Prepared
	Outside  func(paths []string) []string
	// Served, when not nil, is what the held-open file system must serve
	// for the command before it starts: the view binds it.
	Served *Served
}

// Served is one command's part of the held-open file system: its view
// binds HeldView/Token/i at Roots[i]; a read Granted covers is served
// without asking.
type Served struct {
	Token   string
	Roots   []string
	Granted []wire.Scope
}

// under the device policy file in force.
func (l Launcher) Launch(pol wire.Policy, file devicepolicy.Policy, req wire.ExecRequest) (Launch, error) {
	if !file.Confinement {
		return Launch{Prepared: wire.Prepared{Level: wire.LevelOff,
			Unconfined: "the device policy turns confinement off (confinement = false)"}}, nil
	}
	switch l.Confinement.Level {
	case LevelFull, LevelLandlock:
	case LevelSeatbelt: // macOS: a Seatbelt profile, no inner step
		return l.launchSeatbelt(pol, file, req)
	case LevelNone:
		return Launch{}, errUnconfinable
	default: // never a view's rules without the view
		return Launch{}, fmt.Errorf("prepare the sandbox: unknown confinement level %q", l.Confinement.Level)
	}
	if !filepath.IsAbs(req.Path) || len(req.Argv) == 0 {
		return Launch{}, fmt.Errorf("prepare the sandbox: the command %q at %q is not an absolute program path", req.Argv, req.Path)
	}
	if req.Exe == "" {
		if req.Exe = l.Exe; req.Exe == "" {
			return Launch{}, errors.New("prepare the sandbox: no pathgrant-confine or pathgrant binary next to the daemon's for the inner step")
		}
	}
	if b := filepath.Base(req.Exe); b != ConfineName && b != "pathgrant" {
		return Launch{}, fmt.Errorf("prepare the sandbox: %q is not a pathgrant binary", req.Exe)
	}
	inner, bins := InnerStep(req.Exe)
	getenv := envLookup(req.Env)
	tmp, err := SessionTmpDir(TmpBase(getenv), pol.Session)
	if err != nil {
		return Launch{}, err
	}
	in := Input{Policy: pol, Used: pol.Used, TmpDir: tmp, System: SystemRules(), Device: Device{Toolchains: file.Toolchains,
		Caches: file.Caches, ReadOnlyFiles: file.ReadOnlyFiles, SSHAgent: file.SSHAgent, AllowProtected: file.AllowProtected}}
	p := wire.Prepared{Level: l.Confinement.Level, TmpDir: tmp, SSHAgent: file.SSHAgent, Inner: inner,
		Workspace: pol.Workspace, AllowProtected: file.AllowProtected}
	job := rules.Job{Path: req.Path, Argv: req.Argv}
	served, err := l.holdOpens(file, &in, &p, &job)
	if err != nil {
		return Launch{}, err
	}
	var rs []Rule
	if l.Confinement.Level == LevelLandlock {
		// no view and no PID namespace: /proc is split
		// (LandlockSystemRules) and the isolation filter refuses Unix
		// sockets and leaving the process group (rules.Job.Isolate)
		in.Terminals, in.System, job.Isolate = req.Terminals, LandlockSystemRules(OSFS{}), true
		rs, err = Build(in, OSFS{})
	} else {
		fsys := NewMemoFS(OSFS{}) // one snapshot for the view and the rules
		var view View
		cfg := WithHidden(bins, l.Socket, file.SSHAgent, Environ{Getenv: getenv, Home: getenv("HOME")}, Environ{Getenv: l.Getenv, Home: l.Home})
		if l.Socket != "" {
			cfg.EmptyDir = EmptyDirIn(filepath.Dir(l.Socket))
		}
		view, err = BuildView(in, cfg, fsys)
		if err == nil {
			in.ByMount, in.PrivateTmp = view.ByMount, true
			rs, err = Build(in, fsys)
			p.Bwrap, p.Args, p.Placeholders = l.Confinement.Bwrap, view.Options(os.Geteuid() == 0), view.Placeholders
			p.Args = append(p.Args, netOptions(file.Network.Mode)...)
			if wayOut(file.Network.Mode) {
				p.Net, job.Net, job.NetPort = &wire.Net{Port: launch.ProxyPort}, launch.NetFD, launch.ProxyPort
			}
		}
	}
	if err != nil {
		return Launch{}, err
	}
	job.Rules = rs
	if p.Job, err = json.Marshal(job); err != nil {
		return Launch{}, fmt.Errorf("sandbox job: %w", err)
	}
	return Launch{Prepared: p, Outside: in.Outside, Served: served}, nil
}

// holdOpens decides how the command's opens under the approvable roots
// wait for the person: served by the held-open file system where the
// view can bind it, else held by the seccomp supervisor where the kernel
// can, else not at all (the roots stay out of the view).
func (l Launcher) holdOpens(file devicepolicy.Policy, in *Input, p *wire.Prepared, job *rules.Job) (*Served, error) {
	if !file.HoldOpens {
		return nil, nil
	}
	roots := approvable(file.EligibleReadOnly)
	switch {
	case len(roots) == 0:
		return nil, nil
	case l.HeldView != "" && l.Confinement.Level == LevelFull:
		token, err := newToken()
		if err != nil {
			return nil, err
		}
		in.Approvable = roots
		for i := range roots {
			in.ServedFrom = append(in.ServedFrom, filepath.Join(l.HeldView, token, strconv.Itoa(i)))
		}
		return &Served{Token: token, Roots: roots, Granted: readGrants(*in)}, nil
	case l.Confinement.Hold:
		in.Approvable = roots
		p.Hold, job.Hold = &wire.Hold{Roots: roots, Granted: readGrants(*in)}, launch.HoldFD
	}
	return nil, nil
}

// newToken names one command's part of the held-open file system.
func newToken() (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("prepare the sandbox: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// approvable are the eligible roots a confined command's opens are held
// under: canonical (the view shows them there, and the supervisor
// compares the paths opened in it), existing folders.
func approvable(eligible []string) []string {
	var out []string
	for _, r := range eligible {
		c, err := OSFS{}.Canonical(r)
		if fi, serr := os.Stat(c); err == nil && serr == nil && fi.IsDir() {
			out = append(out, c)
		}
	}
	return out
}

// readGrants are the read grants in's rules hold, as the rules and the
// view take them (a path no longer canonical is left out of both).
func readGrants(in Input) []wire.Scope {
	var out []wire.Scope
	for _, g := range slices.Concat(in.Policy.Grants, in.Used) {
		path := filepath.Clean(g.Path)
		if c, err := (OSFS{}).Canonical(path); g.Op == wire.OpRead && err == nil && c == path {
			out = append(out, wire.Scope{Op: g.Op, Path: path, Kind: g.Kind})
		}
	}
	return out
}

// envLookup is getenv over environ ("K=V" entries; the last one wins).
func envLookup(environ []string) func(string) string {
	return func(k string) string {
		v := ""
		for _, kv := range environ {
			if val, ok := strings.CutPrefix(kv, k+"="); ok {
				v = val
			}
		}
		return v
	}
}

// ConfineName is the lean binary's name (cmd/pathgrant-confine): the
// front end of hooks' rewritten commands and the inner step.
const ConfineName = "pathgrant-confine"

// InnerStep is the inner step's command line (the job's descriptor is
// appended) for a front end whose binary is exe (canonical), and the
// binaries the view shows for it: pathgrant-confine when exe is it or
// sits next to it, else `pathgrant exec --inner` (exe being pathgrant).
func InnerStep(exe string) ([]string, ViewConfig) {
	if filepath.Base(exe) == ConfineName {
		return []string{exe}, ViewConfig{Confine: exe}
	}
	if c := ConfineBinary(exe); c != "" {
		return []string{c}, ViewConfig{Exe: exe, Confine: c}
	}
	return []string{exe, "exec", "--inner"}, ViewConfig{Exe: exe}
}

// FrontEndBinary is the binary the daemon running as exe names for its
// own commands' inner step: exe itself when it is pathgrant or
// pathgrant-confine, else (the app, pathgrant-ui) the pathgrant-confine
// or pathgrant next to it; "" when there is none.
func FrontEndBinary(exe string) string {
	exe, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return ""
	}
	if b := filepath.Base(exe); b == ConfineName || b == "pathgrant" {
		return exe
	}
	if c := ConfineBinary(exe); c != "" {
		return c
	}
	p, err := filepath.EvalSymlinks(filepath.Join(filepath.Dir(exe), "pathgrant"))
	if fi, serr := os.Stat(p); err != nil || serr != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return ""
	}
	return p
}

// ConfineBinary is the lean binary when it sits next to the pathgrant
// binary exe (canonical, a regular executable file), else "". Only a file
// next to exe is taken: it is as trusted as exe.
func ConfineBinary(exe string) string {
	c, err := filepath.EvalSymlinks(filepath.Join(filepath.Dir(exe), ConfineName))
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(c); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return ""
	}
	return c
}

// netOptions are bubblewrap's options for the device policy's network
// mode: a network namespace of the command's own (its own loopback, no
// other interface; abstract Unix sockets are per namespace too), except
// in mode "host", which shares the machine's.
func netOptions(mode string) []string {
	if mode == devicepolicy.NetHost {
		return nil
	}
	return []string{"--unshare-net"}
}

// wayOut reports whether a command's namespace has pathgrant's proxy as
// its way out: every mode but "off" (none) and "host" (no namespace).
func wayOut(mode string) bool {
	return mode != devicepolicy.NetHost && mode != devicepolicy.NetOff
}
