package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"pathgrant/sandbox/heldfs"
	"pathgrant/sandbox/seatbelt"
	"pathgrant/sandbox/supervise"
	"pathgrant/wire"
)

// Level is how a confined command is confined (the socket's type: the
// daemon reports it).
type Level = wire.Level

// The machine's confinement levels, strongest first. LevelNone: exec
// refuses unless told otherwise.
const (
	LevelFull     = wire.LevelFull
	LevelLandlock = wire.LevelLandlock
	LevelSeatbelt = wire.LevelSeatbelt
	LevelNone     = wire.LevelNone
)

// MinLandlockABI is the oldest Landlock ABI exec enforces its rules with
// (kernel.MinABI): 5, the first to handle every right in Handled.
const MinLandlockABI = 5

// ScopeLandlockABI is the first Landlock ABI with IPC scopes (signals,
// abstract Unix sockets).
const ScopeLandlockABI = 6

// Confinement is what this machine offers confined commands, and what
// that leaves open.
type Confinement struct {
	Level Level `json:"level"`
	// LandlockABI is the kernel's Landlock ABI, 0 without Landlock.
	LandlockABI int `json:"landlock_abi"`
	// LandlockErr says why Landlock is unusable, if it is.
	LandlockErr string `json:"landlock_error,omitempty"`
	// Bwrap is the bubblewrap binary, "" when none is on PATH.
	Bwrap string `json:"bwrap,omitempty"`
	// UserNS says bubblewrap can make its namespaces: as root, setuid,
	// or with unprivileged user namespaces allowed.
	UserNS bool `json:"userns"`
	// Gaps are what a confined command can still do that it should not.
	Gaps []string `json:"gaps"`
	// Hold says the kernel can hold a confined command's open of an
	// approvable file until the person decides (seccomp user
	// notification, Linux 5.14); HoldErr says why not.
	Hold    bool   `json:"hold"`
	HoldErr string `json:"hold_error,omitempty"`
	// HeldFS says the daemon can serve the approvable roots from its own
	// file system (package sandbox/heldfs: FUSE at the full level), so
	// that no filter holds a command's other opens; HeldFSErr says why
	// not, and opens are then held by the seccomp supervisor.
	HeldFS    bool   `json:"held_fs"`
	HeldFSErr string `json:"held_fs_error,omitempty"`
	// SandboxExec is macOS's sandbox-exec (LevelSeatbelt), "" elsewhere;
	// Developer the developer folder xcode-select chose, which confined
	// commands read and run ("" when there is none).
	SandboxExec string `json:"sandbox_exec,omitempty"`
	Developer   string `json:"developer,omitempty"`
}

// Facts are what Assess decides from; ProbeFacts gathers them.
type Facts struct {
	LandlockABI int
	LandlockErr error
	Bwrap       string
	UserNS      bool
	HoldErr     error // supervise.Available
	HeldFSErr   error // heldfs.Available
	// SandboxExec and Developer are macOS's (seatbeltFacts).
	SandboxExec string
	Developer   string
}

// Probe reports this machine's confinement. It is cheap and changes
// nothing: one Landlock version query, a PATH lookup and a few /proc/sys
// reads; it does not start bubblewrap.
func Probe() Confinement {
	return Assess(ProbeFacts())
}

// ProbeFacts gathers the facts from the system.
func ProbeFacts() Facts {
	f := Facts{}
	f.LandlockABI, f.LandlockErr = landlockABI()
	f.HoldErr = supervise.Available()
	f.HeldFSErr = heldfs.Available()
	f.SandboxExec, f.Developer = seatbeltFacts()
	if path, err := exec.LookPath("bwrap"); err == nil {
		f.Bwrap = path
		f.UserNS = userNSAllowed(path)
	}
	return f
}

// The gaps, by what is missing.
const (
	GapNoLandlock = "no kernel confinement: the command can read and write everything the user can"
	GapNoScopes   = "Landlock ABI below 6: a confined command can signal processes outside and connect to abstract Unix sockets (X11, D-Bus)"
	GapNoView     = "no mount view (bubblewrap or user namespaces missing): what a command starts can outlive it (no PID namespace; it stays in the command's process group, which counts as the agent's); a command can make no Unix socket at all, so the ssh agent cannot be shared and programs that talk over one (D-Bus, X11, tmux, docker) fail; the processes it starts cannot open their own /proc files; no file can be created at the top of a workspace that holds protected paths; toolchains outside the rules cannot start"
	// GapNetwork is where no network namespace can be had; at the full
	// level each command has one (the device policy's mode "host" aside,
	// which doctor's network line shows).
	GapNetwork  = "no network namespace: a confined command reaches the network, and every service listening on this machine, as the user does"
	GapMetadata = "file metadata (chmod, chown, timestamps) in readable places is not restricted by Landlock"
)

// Assess turns facts into a level and its gaps: Landlock first (with the
// mount view when bubblewrap can make it), else Seatbelt (macOS), else
// none.
func Assess(f Facts) Confinement {
	c := Confinement{LandlockABI: f.LandlockABI, Bwrap: f.Bwrap, UserNS: f.UserNS}
	landlock := f.LandlockErr == nil && f.LandlockABI >= MinLandlockABI
	switch {
	case !landlock && f.LandlockErr != nil:
		c.LandlockErr = f.LandlockErr.Error()
	case !landlock:
		c.LandlockErr = fmt.Sprintf("Landlock ABI %d, exec needs %d or later", f.LandlockABI, MinLandlockABI)
	}
	if f.HoldErr != nil {
		c.HoldErr = f.HoldErr.Error()
	}
	switch {
	case !landlock && f.SandboxExec != "":
		c.Level, c.SandboxExec, c.Developer = LevelSeatbelt, f.SandboxExec, f.Developer
		c.LandlockErr = "" // Landlock is Linux's: nothing to fix here
		c.Gaps = append(seatbelt.Gaps(), GapNetwork)
		return c
	case !landlock:
		c.Level, c.Gaps = LevelNone, []string{GapNoLandlock}
		return c
	case f.Bwrap != "" && f.UserNS:
		c.Level = LevelFull
	default:
		c.Level = LevelLandlock
		c.Gaps = append(c.Gaps, GapNoView, GapNetwork)
	}
	if f.LandlockABI < ScopeLandlockABI {
		c.Gaps = append(c.Gaps, GapNoScopes)
	}
	c.Gaps = append(c.Gaps, GapMetadata)
	c.Hold = f.HoldErr == nil
	switch {
	case c.Level != LevelFull:
		c.HeldFSErr = "no mount view to serve it into"
	case f.HeldFSErr != nil:
		c.HeldFSErr = f.HeldFSErr.Error()
	default:
		c.HeldFS = true
	}
	return c
}

// userNSAllowed reports whether bubblewrap can set up its namespaces:
// always as root or when it is setuid; else the kernel must allow
// unprivileged user namespaces (Debian's unprivileged_userns_clone, the
// user namespace limit, Ubuntu's AppArmor restriction).
func userNSAllowed(bwrap string) bool {
	if os.Geteuid() == 0 {
		return true
	}
	if fi, err := os.Stat(bwrap); err == nil && fi.Mode()&os.ModeSetuid != 0 {
		return true
	}
	if v, ok := sysctl("kernel/unprivileged_userns_clone"); ok && v == 0 {
		return false
	}
	if v, ok := sysctl("user/max_user_namespaces"); ok && v == 0 {
		return false
	}
	if v, ok := sysctl("kernel/apparmor_restrict_unprivileged_userns"); ok && v == 1 {
		return false
	}
	return true
}

// sysctl reads a number from /proc/sys.
func sysctl(name string) (int, bool) {
	data, err := os.ReadFile("/proc/sys/" + name)
	if err != nil {
		return 0, false
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(data)))
	return v, err == nil
}
