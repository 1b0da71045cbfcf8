package tcc

import (
	"errors"
	"fmt"
	"syscall"
)

// Refuser says who refused a failed access.
type Refuser int

const (
	// Other is neither: a missing file, a permission bit, a disk error,
	// or an EPERM that macOS privacy controls do not explain.
	Other Refuser = iota
	// Pathgrant is pathgrant's policy: the access was not allowed.
	Pathgrant
	// Privacy is macOS privacy controls: pathgrant allowed the access and
	// the OS answered EPERM under a folder they guard.
	Privacy
)

// String names the refuser for logs and tests.
func (r Refuser) String() string {
	switch r {
	case Pathgrant:
		return "pathgrant"
	case Privacy:
		return "macOS privacy controls"
	}
	return "other"
}

// Access is one failed access, as the caller saw it.
type Access struct {
	GOOS string // runtime.GOOS in production; a test plays any
	Home string // the home folder of the person the access was for
	Path string // canonical path accessed
	Err  error  // what the OS answered (wrapping its errno)
	// Allowed says pathgrant's policy allowed the access, so that an
	// error is the OS's doing, not pathgrant's.
	Allowed bool
}

// Classify says who refused a: pathgrant when its policy did not allow
// it; macOS privacy controls when it did, on macOS, and the OS answered
// EPERM under a guarded folder (with that folder); else Other. EACCES is
// never theirs: it is the file's permission bits.
func Classify(a Access) (Refuser, Folder) {
	switch {
	case !a.Allowed:
		return Pathgrant, Folder{}
	case a.GOOS != "darwin" || !errors.Is(a.Err, syscall.EPERM):
		return Other, Folder{}
	}
	if f, ok := Guarding(a.Home, a.Path); ok {
		return Privacy, f
	}
	return Other, Folder{}
}

// Explain is the one line a person reads when macOS privacy controls
// refused a, and true; for any other failure it is "" and false, and the
// caller keeps its own message. app names who must be let in (App);
// "" says the terminal or agent app.
func Explain(a Access, app string) (string, bool) {
	r, f := Classify(a)
	if r != Privacy {
		return "", false
	}
	return Refusal(a.Path, f, app), true
}

// Refusal is the line for path under the guarded folder f: who refused,
// that pathgrant did not, and the setting that lets app in.
func Refusal(path string, f Folder, app string) string {
	return fmt.Sprintf("%s: macOS privacy controls refused access to %s (Operation not permitted; pathgrant allowed it): %s",
		path, f.Name, Fix(f, app))
}

// Fix is the step that lets app into f: its switch under Files and
// Folders (Full Disk Access covers it too), or Full Disk Access alone.
// "" for app says the terminal or agent app.
func Fix(f Folder, app string) string {
	if app == "" {
		app = "the terminal or agent app you run it from"
	}
	if f.Pane == FullDiskAccess {
		return fmt.Sprintf("System Settings → Privacy & Security → Full Disk Access: allow %s", app)
	}
	return fmt.Sprintf("System Settings → Privacy & Security → Files and Folders (or Full Disk Access): allow %s (%s)", app, f.Name)
}
