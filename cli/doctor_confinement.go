package cli

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"pathgrant/daemon"
	"pathgrant/devicepolicy"
	"pathgrant/sandbox"
)

// confinementChecks report what the system confines with (Landlock,
// bubblewrap and user namespaces on Linux; Seatbelt on macOS) and what it
// adds up to with the device policy's confinement setting, then what
// confinement still leaves open.
func confinementChecks(env doctorEnv, socket string) []doctorCheck {
	c := env.Confinement()
	out := kernelChecks(env, c)
	confined := confinedCheck(env, c)
	out = append(out, confined, holdCheck(env, c, confined.Status == doctorOK, heldMounted(env, socket)), frontEndCheck(env), protectedCheck(env),
		approvalBoundary(c.Level, confined.Status == doctorOK))
	out = append(out, detachedChecks(env, confined.Status == doctorOK)...)
	for _, g := range c.Gaps {
		out = append(out, doctorCheck{Name: "confinement gap", Status: doctorInfo, Detail: g})
	}
	return out
}

// kernelChecks are the lines of what confines commands on env's system.
func kernelChecks(env doctorEnv, c sandbox.Confinement) []doctorCheck {
	if env.GOOS == "darwin" {
		return []doctorCheck{seatbeltCheck(c)}
	}
	out := []doctorCheck{landlockCheck(c), bwrapCheck(c)}
	if c.Bwrap != "" {
		out = append(out, usernsCheck(c))
	}
	return out
}

// seatbeltCheck is macOS's one line: sandbox-exec, which ships with the
// system, runs every confined command under its Seatbelt profile.
func seatbeltCheck(c sandbox.Confinement) doctorCheck {
	if c.SandboxExec == "" {
		return doctorCheck{Name: "seatbelt", Status: doctorFail, Detail: "sandbox-exec is missing: agent shell commands cannot be confined",
			Fix: "it ships with macOS at /usr/bin/sandbox-exec: reinstall or repair macOS"}
	}
	return doctorCheck{Name: "seatbelt", Status: doctorOK, Detail: c.SandboxExec + ": runs each confined command under a profile made from its session's policy"}
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
const confinedHow = "the MCP bridge's execute_shell_command and, by default, the shell tools of Claude Code, Codex, Gemini CLI and Pi (their hooks rewrite each allowed command to run under pathgrant-confine exec); Cursor's cannot be rewritten and are checked by the guard alone"

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
	case c.Level == sandbox.LevelNone && env.GOOS == "darwin":
		d.Status, d.Detail = doctorFail, "UNCONFINED: agent shell commands run unconfined: sandbox-exec is unavailable"
		d.Fix = "see seatbelt above"
	case c.Level == sandbox.LevelNone:
		d.Status, d.Detail = doctorFail, "UNCONFINED: agent shell commands run unconfined: Landlock is unavailable"
		d.Fix = "see landlock above"
	default:
		d.Status, d.Detail = doctorOK, fmt.Sprintf("%s: agent shell commands run confined through %s", c.Level, confinedHow)
	}
	return d
}

// holdCheck says which mode a confined command's reads under the eligible
// roots are in: held (the command waits for the person, then reads the
// file, no retry), by pathgrant's file system or, where that cannot be
// had, by the seccomp supervisor, and what that costs; or refused at once
// (the agent is told it can be approved and runs the command again), and
// why. mounted says the daemon's file system is mounted now.
func holdCheck(env doctorEnv, c sandbox.Confinement, confined, mounted bool) doctorCheck {
	d := doctorCheck{Name: "held opens", Status: doctorInfo}
	const atOnce = ": a confined command's read under an eligible root fails at once; the agent is told it can be approved, and runs the command again"
	p, file, err := deviceFileOf(env)
	switch {
	case !confined:
		d.Detail = "off: commands are not confined"
		return d
	case err != nil:
		d.Detail = "unknown: the device policy does not load"
		return d
	case !p.HoldOpens:
		d.Detail, d.Fix = "off in the device policy (hold_opens = false)"+atOnce, "set hold_opens = true in "+file
		return d
	case !c.HeldFS && !c.Hold:
		d.Detail, d.Fix = "off: "+oneLine(c.HeldFSErr)+"; "+oneLine(c.HoldErr)+atOnce, heldFSFix(c.HeldFSErr)
		return d
	}
	held := "on: a confined command that opens a file under " + strings.Join(p.EligibleReadOnly, ", ") +
		" is paused until you decide, then reads it (nothing is run again); confined commands see those folders' names and metadata (ls -l of a name, test -f), never their contents; "
	switch {
	case c.HeldFS && mounted:
		d.Status, d.Detail = doctorOK, held+"served by pathgrant's file system (FUSE): only opens under those folders wait, nothing else a command opens is held"
	case c.HeldFS:
		d.Status, d.Detail = doctorOK, held+"served by pathgrant's file system (FUSE), which the daemon mounts when it starts (not mounted now: if the daemon runs, its log says why, and it holds them with the seccomp supervisor)"
	default:
		d.Detail = held + "held by the seccomp supervisor, the fallback, because pathgrant's file system cannot be mounted (" + oneLine(c.HeldFSErr) +
			"): every open a confined command makes then costs a round trip to it"
		d.Fix = heldFSFix(c.HeldFSErr)
	}
	return d
}

// heldFSFix is what lets the daemon mount its file system, by why it
// cannot.
func heldFSFix(why string) string {
	switch {
	case strings.Contains(why, "fusermount3"):
		return "sudo apt-get install fuse3, then restart pathgrant"
	case strings.Contains(why, "/dev/fuse"):
		return `sudo chmod 0666 /dev/fuse, as a desktop's udev does (to keep it: a udev rule KERNEL=="fuse", MODE="0666"), then restart pathgrant`
	}
	return ""
}

// heldMounted reports whether the daemon on socket has its held-open file
// system mounted (this process's mount table shows it: the person's own
// processes share the daemon's).
func heldMounted(env doctorEnv, socket string) bool {
	data, err := env.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	dir := daemon.HeldDir(socket)
	for _, line := range strings.Split(string(data), "\n") {
		before, after, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		if mp := strings.Fields(before); len(mp) >= 5 && unescapeMount(mp[4]) == dir && strings.HasPrefix(after, "fuse.pathgrant ") {
			return true
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes (a space is \040).
func unescapeMount(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// deviceFileOf loads the device policy file and names it.
func deviceFileOf(env doctorEnv) (devicepolicy.Policy, string, error) {
	loc, err := devicepolicy.Locate(env.Getenv)
	if err != nil {
		return devicepolicy.Policy{}, "", err
	}
	dir := devicepolicy.Dir(env.Getenv, loc.Home)
	p, err := devicepolicy.Load(dir, loc)
	return p, filepath.Join(dir, devicepolicy.TOMLName), err
}

// frontEndCheck says which binary the hooks' rewritten commands start:
// pathgrant-confine, small and fast to start, or (without it) the whole
// pathgrant binary, which works but adds a millisecond or more to every
// agent shell command.
func frontEndCheck(env doctorEnv) doctorCheck {
	c := doctorCheck{Name: "pathgrant-confine"}
	p, dir := findCompanion(env, sandbox.ConfineName)
	if p != "" {
		c.Status, c.Detail = doctorOK, p+": starts each confined command"
		return c
	}
	c.Status, c.Detail = doctorWarn, "not found next to pathgrant or on PATH: confined commands start the whole pathgrant binary, which is slower"
	c.Fix = "build it: CGO_ENABLED=0 go build -o " + dir + "/ ./cmd/pathgrant-confine"
	return c
}

// approvalBoundary says who can approve at the level agent commands run
// at, and what keeps everyone else out: the person, with the one-time
// code, from a process outside every agent's command. Each level closes
// the socket to confined commands its own way, and says how; unconfined
// commands can reach it, and then the code is the only barrier.
func approvalBoundary(level sandbox.Level, confined bool) doctorCheck {
	const who = "only you, with the request's one-time code, from outside every agent's command (your terminal, the app); "
	d := doctorCheck{Name: "who can approve", Status: doctorOK}
	switch {
	case !confined:
		d.Status, d.Detail = doctorInfo, "code-only: unconfined agent commands can reach the socket, so the one-time approval code is the only barrier (an agent that can read your screen could defeat it)"
	case level == sandbox.LevelFull:
		d.Detail = "confined (" + string(level) + "): " + who + "agent commands cannot reach the decision channel: the mount view hides pathgrant's socket, its PID namespace hides your processes (and their command lines) and ends with the command whatever it started"
	case level == sandbox.LevelLandlock:
		d.Detail = "confined by Landlock only: " + who + "agent commands can make no Unix socket, so they cannot reach the decision channel, and can read no other process's /proc (your command lines); what they start can outlive them but stays in their process group, which the daemon counts as the agent's, so it can never approve"
	case level == sandbox.LevelSeatbelt:
		d.Detail = "confined (" + string(level) + "): " + who + "the profile keeps agent commands, and what they detach, from pathgrant's socket"
	default:
		d.Status, d.Detail = doctorInfo, "code-only: agent commands are not confined at this level, so the one-time approval code is the only barrier"
	}
	return d
}

// policyConfinement reads the device policy's confinement setting and
// names the file that would change it.
func policyConfinement(env doctorEnv) (on bool, file string, err error) {
	p, file, err := deviceFileOf(env)
	if err != nil {
		return false, "", err
	}
	return p.Confinement, file, nil
}

// protectedCheck says which members of the protected set the device
// policy opens (allow_protected): files a person's tools run that agent
// commands may then write.
func protectedCheck(env doctorEnv) doctorCheck {
	c := doctorCheck{Name: "protected set"}
	p, _, err := deviceFileOf(env)
	switch {
	case err != nil:
		c.Status, c.Detail = doctorInfo, "unknown: the device policy does not load"
	case len(p.AllowProtected) == 0:
		c.Status, c.Detail = doctorOK, "whole: git's configuration and hooks, the agents' project files, editor folders and shell start-up files stay read-only to agents"
	default:
		c.Status = doctorWarn
		c.Detail = "opened by allow_protected: " + strings.Join(p.AllowProtected, ", ") + ": agent commands may write them, and your own tools run what they hold"
		c.Fix = "remove what you do not need from allow_protected in the device policy"
	}
	return c
}
