package ipc

import (
	"net/http"
	"slices"

	"pathgrant/devicepolicy"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// handlePolicy returns the resolved session's effective permissions now:
// its roots, the device's protected paths, and the read grants it may use.
// `pathgrant exec` builds its kernel ruleset from exactly this.
func (s *Server) handlePolicy(w http.ResponseWriter, _ *http.Request, c sessionCall) {
	pol, err := s.sessionPolicy(c.sess)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, pol)
}

// sessionPolicy is sess's effective permissions now; with a device policy
// file configured, also the file's toolchains, caches, read-only files,
// ssh agent and confinement switches, so exec need not read the file
// itself.
func (s *Server) sessionPolicy(sess *session) (wire.Policy, *apiError) {
	gs, err := s.usableGrants(sess.ID)
	if err != nil {
		return wire.Policy{}, errorf(http.StatusInternalServerError, "", "list grants: %v", err)
	}
	d := s.devicePolicy(sess.roots.Workspace)
	pol := wire.Policy{
		Session: sess.ID, Cwd: sess.Cwd, Workspace: nonNil(sess.roots.Workspace), ReadOnly: nonNil(sess.roots.ReadOnly),
		BlockedWrite: nonNil(sess.roots.BlockedWrite), Protected: nonNil(d.Protected), Grants: gs,
	}
	if s.cfg.DeviceFile != nil { // else exec reads the file itself
		file := s.cfg.DeviceFile()
		pol.Toolchains, pol.Caches, pol.ReadOnlyFiles, pol.SSHAgent = file.Toolchains, file.Caches, file.ReadOnlyFiles, file.SSHAgent
		pol.Confinement = &file.Confinement
	}
	return pol, nil
}

// deviceFile is the device policy file in force; without one configured,
// its defaults' switches (confined, no ssh agent) and no extra roots.
func (s *Server) deviceFile() devicepolicy.Policy {
	if s.cfg.DeviceFile == nil {
		return devicepolicy.Policy{Confinement: true}
	}
	return s.cfg.DeviceFile()
}

// usableGrants lists the live grants the session may use: its own and this
// device's, minus any bound to another device.
func (s *Server) usableGrants(session string) ([]guard.Scope, error) {
	own, err := s.cfg.Store.List(grants.Filter{Session: session})
	if err != nil {
		return nil, err
	}
	device, err := s.cfg.Store.List(grants.Filter{Scope: grants.ScopeDevice})
	if err != nil {
		return nil, err
	}
	out := []guard.Scope{}
	for _, g := range slices.Concat(own, device) {
		if s.cfg.Store.Foreign(g) || (g.Scope != grants.ScopeDevice && g.Session != session) {
			continue
		}
		sc := guard.Scope{Op: g.Op, Path: g.Path, Kind: g.Kind}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
