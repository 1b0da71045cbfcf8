package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"pathgrant/appdirs"
	"pathgrant/devicepolicy"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/hooks/clientconfig"
)

// A session's roots are what the daemon itself reads and writes for it
// (the tool routes) and what its commands' sandboxes show, so a session
// over a folder of secrets would make the daemon a confused deputy. Every
// registering route (POST /v1/sessions, a hook-only session's first check,
// and so `pathgrant run`) passes each workspace and read-only root through
// checkBounds, after symlink resolution, before the session exists.

// boundClass is one kind of place no session root may overlap.
type boundClass struct {
	is, ref string // "is a credential folder", "lies inside the credential folder X"
	// under says whether a root lying inside the place is refused too:
	// not for the root folder and the home folder, where all work lives.
	under bool
}

var (
	boundRoot       = boundClass{is: "the root folder", ref: "the root folder"}
	boundHome       = boundClass{is: "the home folder", ref: "the home folder"}
	boundCredential = boundClass{is: "a credential folder", ref: "the credential folder", under: true}
	boundState      = boundClass{is: "pathgrant's state folder", ref: "pathgrant's state folder", under: true}
	boundRuntime    = boundClass{is: "pathgrant's runtime folder", ref: "pathgrant's runtime folder", under: true}
	boundConfig     = boundClass{is: "pathgrant's config folder", ref: "pathgrant's config folder", under: true}
	boundAgent      = boundClass{is: "an agent's configuration home", ref: "the agent configuration home", under: true}
	boundAgentFile  = boundClass{is: "an agent's configuration", ref: "the agent configuration", under: true}
	boundProtected  = boundClass{is: "a protected path", ref: "the protected path", under: true}
	boundStarts     = boundClass{is: "a folder your desktop session starts programs from", ref: "the session's start-up folder", under: true}
)

// sessionStarts are the folders the person's login and desktop session
// start programs from without asking (systemd user units and their
// environment, XDG autostart entries, desktop entries): a file planted
// there runs as the person at the next login, pathgrant's own units and
// autostart entry among them.
func sessionStarts(getenv appdirs.Getenv, home string) []string {
	config, data := appdirs.ConfigHome(getenv, home), appdirs.DataHome(getenv, home)
	return []string{filepath.Join(config, "systemd"), filepath.Join(config, "autostart"),
		filepath.Join(config, "environment.d"), filepath.Join(data, "applications"), filepath.Join(data, "systemd")}
}

// bound is one place no root may be, lie inside (when class.under) or
// contain.
type bound struct {
	path  string // canonical
	class boundClass
}

// boundsError is a root refused by checkBounds: the registering routes
// answer it 403 and audit it.
type boundsError struct {
	role, root string // role: "workspace" or "read-only root"
	msg        string
}

func (e *boundsError) Error() string { return e.msg }

// registrationBounds lists the places no session root may overlap, most
// specific class first so that a refusal names the best reason: the
// device policy's never-allowed credential folders, pathgrant's own
// folders (as configured and at their default places), the agents'
// configuration homes (moved by their variables or not), and every
// protected path of the device policy. Each is canonicalised, and kept as
// written too when that differs, so a link cannot hide one.
func (s *Engine) registrationBounds() []bound {
	home, getenv := s.cfg.Home, s.getenv()
	noEnv := func(string) string { return "" }
	var out []bound
	add := func(class boundClass, paths ...string) {
		for _, p := range paths {
			if !filepath.IsAbs(p) {
				continue
			}
			for _, v := range canonicalAndClean(home, p) {
				out = append(out, bound{v, class})
			}
		}
	}
	add(boundRoot, "/")
	add(boundHome, home)
	add(boundCredential, devicepolicy.Forbidden(home)...)
	if s.cfg.Store != nil && s.cfg.Store.Path() != "" {
		add(boundState, ownBound(s.cfg.Store.Path(), home))
	}
	add(boundState, appdirs.StateDir(getenv, home), appdirs.StateDir(noEnv, home))
	add(boundRuntime, ownBound(appdirs.Socket(getenv), home), appdirs.RuntimeDir(getenv))
	add(boundConfig, appdirs.ConfigDir(getenv, home), appdirs.ConfigDir(noEnv, home))
	add(boundAgent, agentHomes(getenv, home)...)
	add(boundAgentFile, clientconfig.GlobalProtected(getenv, home)...)
	add(boundStarts, sessionStarts(getenv, home)...)
	add(boundStarts, sessionStarts(noEnv, home)...)
	add(boundProtected, s.cfg.Device.Protected...)
	return out
}

// ownBound is the folder of pathgrant's file path (see ownFolder), or the
// file itself when that folder holds the home folder (a scratch store
// beside a scratch home): no root may be, lie in or hold the file then.
func ownBound(path, home string) string {
	if dir := ownFolder(path, home); !guard.Within(dir, home) {
		return dir
	}
	return filepath.Clean(path)
}

// getenv is the daemon's environment as configured, else the process's.
func (s *Engine) getenv() appdirs.Getenv {
	if s.cfg.Getenv != nil {
		return s.cfg.Getenv
	}
	return os.Getenv
}

// agentHomes are every client's configuration folder (~/.claude, ~/.codex,
// ~/.gemini, ~/.cursor, ~/.pi/agent, ~/.config/opencode and ~/.opencode):
// at its default place and where its
// variable (CLAUDE_CONFIG_DIR, CODEX_HOME, …) moves it, since the client
// may run with or without it.
func agentHomes(getenv appdirs.Getenv, home string) []string {
	noEnv := func(string) string { return "" }
	var out []string
	for _, name := range clientconfig.Clients() {
		c, err := clientconfig.LookupClient(name)
		if err != nil {
			continue
		}
		for _, ge := range []appdirs.Getenv{noEnv, getenv} {
			if d := c.Dir(ge, home); !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
		out = append(out, c.HomeFolders(home)...)
	}
	return out
}

// canonicalAndClean is p resolved through its links, and p as written
// when that differs.
func canonicalAndClean(home, p string) []string {
	clean := filepath.Clean(p)
	canon, err := (guard.Canonicalizer{Home: home}).Canonical(clean, "/", true)
	if err != nil || canon == clean {
		return []string{clean}
	}
	return []string{canon, clean}
}

// projectConfigNames are the folders and files, inside any project, that
// git or an agent reads its configuration from (.git, .claude, .codex,
// .gemini, .cursor, .pi, .mcp.json): the first component of each path a
// workspace protects. A workspace root at or below one would make those
// files the new session's own to write, outside the protection its
// enclosing project has, so no workspace root may have such a component.
// Compared case-insensitively; ".claude-notes" is another name.
func projectConfigNames() []string {
	var out []string
	for _, rel := range workspaceProtected {
		first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		if first = strings.ToLower(first); !slices.Contains(out, first) {
			out = append(out, first)
		}
	}
	return out
}

// checkBounds refuses the first canonical root of sp that is, lies inside
// or contains a place of bounds, and a workspace root inside a project's
// configuration.
func checkBounds(sp guard.SessionPolicy, bounds []bound) *boundsError {
	return checkBoundsOn(runtime.GOOS, sp, bounds)
}

// checkBoundsOn is checkBounds on the system goos (foldsCase).
func checkBoundsOn(goos string, sp guard.SessionPolicy, bounds []bound) *boundsError {
	for _, l := range []struct {
		role  string
		roots []string
	}{{"workspace", sp.Workspace}, {"read-only root", sp.ReadOnly}} {
		for _, root := range l.roots {
			if e := rootBounds(foldsCase(goos), l.role, root, bounds); e != nil {
				return e
			}
		}
	}
	for _, root := range sp.Workspace {
		if name := projectConfigPart(root); name != "" {
			return &boundsError{role: "workspace", root: root,
				msg: fmt.Sprintf("workspace %s lies inside a project's %s, which git or an agent reads its configuration from (never allowed)", root, name)}
		}
	}
	return nil
}

// rootBounds is checkBounds for one root; fold compares without case.
func rootBounds(fold bool, role, root string, bounds []bound) *boundsError {
	for _, b := range bounds {
		var msg string
		switch {
		case boundWithin(fold, root, b.path) && boundWithin(fold, b.path, root):
			msg = fmt.Sprintf("%s %s is %s (never allowed)", role, root, b.class.is)
		case b.class.under && boundWithin(fold, b.path, root):
			msg = fmt.Sprintf("%s %s lies inside %s %s (never allowed)", role, root, b.class.ref, b.path)
		case boundWithin(fold, root, b.path):
			msg = fmt.Sprintf("%s %s contains %s %s (never allowed)", role, root, b.class.ref, b.path)
		default:
			continue
		}
		return &boundsError{role: role, root: root, msg: msg}
	}
	return nil
}

// foldsCase says whether goos's file systems name one file by every
// casing of its path: macOS formats its volumes case-insensitive unless
// told otherwise, so there /users/ana/library/keychains is
// ~/Library/Keychains, and a root is held to the bounds without case
// (refusing only more on a case-sensitive volume).
func foldsCase(goos string) bool { return goos == "darwin" }

// boundWithin is guard.Within, or, when fold, the same comparison
// component by component without case (Unicode simple folding, so the
// Kelvin sign is a K): a folded name may differ in length, so a byte
// prefix cannot tell.
func boundWithin(fold bool, root, p string) bool {
	if !fold || root == "/" {
		return guard.Within(root, p)
	}
	rs, ps := strings.Split(root, "/"), strings.Split(p, "/")
	if len(ps) < len(rs) {
		return false
	}
	for i, r := range rs {
		if !strings.EqualFold(r, ps[i]) {
			return false
		}
	}
	return true
}

// projectConfigPart is the component of root that names a project's git
// or agent configuration, or "".
func projectConfigPart(root string) string {
	names := projectConfigNames()
	for _, part := range strings.Split(root, "/") {
		if slices.Contains(names, strings.ToLower(part)) {
			return part
		}
	}
	return ""
}

// registrationError is how a registering route answers newSession's
// error: a root out of bounds is 403 (the caller audits it), anything
// else 400.
func registrationError(err error, what string) *Error {
	var be *boundsError
	if errors.As(err, &be) {
		return errorf(Forbidden, grants.KindDeny, "%s", be.msg)
	}
	return errorf(BadRequest, "", "%s: %v", what, err)
}

// boundsRoot is the root a bounds refusal names, or "".
func boundsRoot(err error) string {
	var be *boundsError
	if errors.As(err, &be) {
		return be.root
	}
	return ""
}
