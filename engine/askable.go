package engine

import (
	"path/filepath"
	"strings"

	"pathgrant/guard"
	"pathgrant/wire"
)

// What the person may ask to allow themselves (AskFromAudit, AskForPath)
// is wider than what an agent's denial offers: a read under an eligible
// root, as ever, and also a read of the person's own files elsewhere in
// the home folder (~/Documents/spec.pdf), the bridge from a refusal in
// the log to a grant. Never wider than that: nothing outside the home
// folder, nothing in a hidden folder (configuration, credentials and
// state live there: ~/.ssh, ~/.config, ~/.local), none of the places no
// session root may overlap (credential folders, pathgrant's own folders,
// the agents' configuration, the desktop's start-up folders), and no
// protected path. The guard honours such a grant because it looks a
// grant up before it asks whether a path is eligible.

// neverAskable says why the person may not ask for a read of path (its
// subtree when tree), or "" when they may.
func (s *Engine) neverAskable(sess *session, path string, tree bool) string {
	if s.baseOfferable(sess)(guard.OpRead, path, tree) {
		return ""
	}
	home := s.cfg.Home
	if home == "" || path == home || !guard.Within(home, path) {
		return "only reads under the eligible roots or of your own files in the home folder can be allowed"
	}
	for _, c := range strings.Split(strings.TrimPrefix(path, home+"/"), "/") {
		if strings.HasPrefix(c, ".") {
			return "it is hidden (" + c + "): configuration, credentials and state live in hidden folders"
		}
	}
	for _, b := range s.registrationBounds() {
		if b.class.under && reachesPlace(b.path, path, tree) {
			return "it is or holds " + b.class.is + " (" + b.path + ")"
		}
	}
	for _, n := range s.deviceFile().NeverEligible {
		for _, v := range canonicalAndClean(home, n) {
			if reachesPlace(v, path, tree) {
				return "it is or holds " + v + ", which pathgrant never offers (credentials, configuration or state)"
			}
		}
	}
	if !s.homeOfferable(sess)(guard.OpRead, path, tree) {
		return "it is or holds a protected path"
	}
	return ""
}

// grantable is what a decision on r may grant: what the session (or, for
// a request of no session, the device) may be offered, and, for a request
// the person raised, whatever they may ask for.
func (s *Engine) grantable(sess *session, r wire.Request) func(op guard.Op, path string, tree bool) bool {
	base := s.baseOfferable(sess)
	if r.Asked == "" {
		return base
	}
	return func(op guard.Op, path string, tree bool) bool {
		return base(op, path, tree) || (op == guard.OpRead && s.neverAskable(sess, path, tree) == "")
	}
}

// baseOfferable is sess's Offerable, or the device's alone (its eligible
// roots and protected paths) for no session.
func (s *Engine) baseOfferable(sess *session) func(op guard.Op, path string, tree bool) bool {
	if sess != nil {
		return s.offerable(sess)
	}
	return s.compiledOfferable(nil, nil)
}

// homeOfferable is Offerable with the home folder as the one eligible
// root: what it refuses is a protected path (the device's, and the hook
// settings of sess's workspaces).
func (s *Engine) homeOfferable(sess *session) func(op guard.Op, path string, tree bool) bool {
	var ws []string
	if sess != nil {
		ws = sess.roots.Workspace
	}
	return s.compiledOfferable(ws, []string{s.cfg.Home})
}

// compiledOfferable compiles the device policy in force for workspaces
// (eligible replacing its eligible roots when given) and returns its
// Offerable; one that does not compile offers nothing.
func (s *Engine) compiledOfferable(workspaces, eligible []string) func(op guard.Op, path string, tree bool) bool {
	d := s.devicePolicyOf(s.deviceFile(), workspaces)
	if eligible != nil {
		d.EligibleReadOnly = eligible
	}
	c, err := guard.Policy{DevicePolicy: d}.Compile(s.cfg.Home)
	if err != nil {
		s.log.Error("nothing is offerable", "err", err)
		return func(guard.Op, string, bool) bool { return false }
	}
	return c.Offerable
}

// scopeCeiling is the widest folder a scope edited from path may reach:
// the eligible root path lies in, else the folder of the home folder it
// lies in (~/Documents), else path's own folder.
func (s *Engine) scopeCeiling(path string) string {
	canon := guard.Canonicalizer{Home: s.cfg.Home}
	best := ""
	for _, r := range s.deviceFile().EligibleReadOnly {
		root, err := canon.Canonical(r, "/", true)
		if err == nil && guard.Within(root, path) && (best == "" || len(root) < len(best)) {
			best = root
		}
	}
	if best != "" {
		return best
	}
	home := s.cfg.Home
	if home != "" && path != home && guard.Within(home, path) {
		first, _, _ := strings.Cut(strings.TrimPrefix(path, home+"/"), "/")
		return filepath.Join(home, first)
	}
	return filepath.Dir(path)
}

// reachesPlace reports whether path lies in place or, for a subtree
// (tree), holds it.
func reachesPlace(place, path string, tree bool) bool {
	return guard.Within(place, path) || (tree && guard.Within(path, place))
}
