package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"pathgrant/devicepolicy"
	"pathgrant/engine"
	"pathgrant/guard"
	"pathgrant/sandbox"
)

// daemonOutputChecks look at where the running daemon's stderr and stdout
// go. A headless daemon logs each request's one-time approval code on
// stderr for the person; whoever reads that log can approve. A terminal,
// a pipe (the journal) or /dev/null keeps it with the person; a regular
// file does only inside pathgrant's own folders (safeLogFolders).
func daemonOutputChecks(env doctorEnv, socket string) []doctorCheck {
	d, err := inspectDaemon(env, socket)
	if err != nil {
		return []doctorCheck{{Name: "daemon stderr", Status: doctorInfo,
			Detail: "where the daemon logs was not checked: " + oneLine(err.Error())}}
	}
	safe := safeLogFolders(d, socket)
	return []doctorCheck{outputCheck(env, d, safe, 2), outputCheck(env, d, safe, 1)}
}

// outputCheck reports one of the daemon's output descriptors.
func outputCheck(env doctorEnv, d daemonProc, safe []string, fd int) doctorCheck {
	c := doctorCheck{Name: "daemon stdout"}
	if fd == 2 {
		c.Name = "daemon stderr"
	}
	if err := procFiles(); err != nil {
		c.Status, c.Detail = doctorInfo, "not checked: "+err.Error()
		return c
	}
	link := d.proc(fmt.Sprintf("fd/%d", fd))
	target, err := env.Readlink(link)
	switch {
	case errors.Is(err, fs.ErrPermission):
		c.Status, c.Detail = doctorInfo, "not checked: the daemon is undumpable, so no process of yours may look into it; "+
			"it checks where its own output goes when it starts, and warns in its log"
		return c
	case err != nil:
		c.Status, c.Detail = doctorInfo, "not checked: "+oneLine(err.Error())
		return c
	}
	fi, err := env.Stat(link)
	if err != nil {
		c.Status, c.Detail = doctorInfo, fmt.Sprintf("%s: not checked: %s", target, oneLine(err.Error()))
		return c
	}
	if !fi.Mode().IsRegular() {
		c.Status, c.Detail = doctorOK, outputKind(target, fi.Mode())
		return c
	}
	c.Status, c.Detail, c.Fix = fileOutput(d, safe, fd, strings.TrimSuffix(target, " (deleted)"))
	return c
}

// fileOutput judges an output descriptor that is the regular file file:
// fine inside a safe folder; else a failure for a headless daemon's
// stderr, which holds the approval codes.
func fileOutput(d daemonProc, safe []string, fd int, file string) (status, detail, fix string) {
	if in := folderOf(safe, file); in != "" {
		return doctorOK, fmt.Sprintf("%s, inside %s, which confined commands cannot see and agents' tools may not read", file, in), ""
	}
	const outside = ": a file outside pathgrant's protected folders"
	switch {
	case fd == 1:
		return doctorInfo, file + outside + "; the daemon prints nothing there (it logs on stderr)", ""
	case d.Headless:
		return doctorFail, file + outside + " holds the approval codes this headless daemon logs: an agent given access to it (a workspace, a grant, an unconfined command) can approve its own requests", logFix(d, safe, file)
	}
	return doctorWarn, file + outside + " holds the daemon's log (the paths agents ask for; approval codes too if it falls back to serving headless)", logFix(d, safe, file)
}

// outputKind names an output that is not a regular file.
func outputKind(target string, mode fs.FileMode) string {
	switch {
	case target == os.DevNull:
		return "discarded (" + target + ")"
	case mode&fs.ModeCharDevice != 0:
		return "a terminal or device (" + target + ")"
	case mode&fs.ModeNamedPipe != 0:
		return "a pipe (" + target + ")"
	case mode&fs.ModeSocket != 0:
		return "a socket (" + target + "; the journal, when systemd starts the daemon)"
	}
	return target
}

// logFix says where the log may go instead of file.
func logFix(d daemonProc, safe []string, file string) string {
	where := "a terminal or the journal (systemd-cat -t pathgrant pathgrant serve --headless, or a systemd user unit)"
	if len(safe) > 0 {
		dir := preferredLogFolder(d, safe)
		where = fmt.Sprintf("a terminal, the journal (systemd-cat -t pathgrant pathgrant serve --headless, or a systemd user unit) or a file in %s (2>>%s)",
			dir, filepath.Join(dir, "headless.log"))
	}
	return "restart the daemon logging to " + where + ", then delete " + file
}

// preferredLogFolder is the store's folder (pathgrant's state folder by
// default) when it is safe, else the first safe folder.
func preferredLogFolder(d daemonProc, safe []string) string {
	if dir := folderOf(safe, canonical(filepath.Dir(d.Store))); dir != "" {
		return canonical(filepath.Dir(d.Store))
	}
	return safe[0]
}

// safeLogFolders are where a log file stays with the person: folders
// both hidden from every confined command's view (sandbox.HiddenPaths,
// which the daemon's Launcher hides) and protected by the daemon's guard
// (engine.DefaultDevicePolicy), whose reads the guard refuses outside a
// workspace and never offers for approval. By default these are
// pathgrant's state folder (the store's), its runtime (socket) folder and
// its config folder. Canonical, sorted.
func safeLogFolders(d daemonProc, socket string) []string {
	hidden := sandbox.HiddenPaths(sandbox.Places{Getenv: d.Getenv, Home: d.Home, UID: d.UID, Socket: socket,
		Forbidden: devicepolicy.Forbidden(d.Home)})
	protected := engine.DefaultDevicePolicy(d.Getenv, d.Home, d.Store, socket).Protected
	var out []string
	for _, h := range hidden {
		h = canonical(h)
		for _, p := range protected {
			switch p = canonical(p); {
			case guard.Within(p, h):
				out = append(out, h)
			case guard.Within(h, p):
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// folderOf is the folder of folders that holds path, or "".
func folderOf(folders []string, path string) string {
	for _, f := range folders {
		if guard.Within(f, path) {
			return f
		}
	}
	return ""
}

// canonical resolves links in path where it exists, as the kernel's
// /proc/PID/fd links do.
func canonical(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return filepath.Clean(path)
}

// ownLogCheck is the daemon stderr check of this process as a headless
// daemon on socket and store: `pathgrant serve --headless` logs it as a
// warning when it fails, for a person who never runs doctor.
func ownLogCheck(socket, store, home string) doctorCheck {
	d := daemonProc{PID: os.Getpid(), UID: os.Getuid(), Headless: true, Getenv: os.Getenv, Home: home, Store: store}
	return outputCheck(systemDoctorEnv(), d, safeLogFolders(d, socket), 2)
}
