package engine

import (
	"fmt"
	"slices"
	"sync/atomic"

	"pathgrant/devicepolicy"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// sessionPolicy is sess's effective permissions now; with a device policy
// file configured, also the file's toolchains, caches, read-only files,
// ssh agent and confinement switches, so exec need not read the file
// itself.
func (s *Engine) sessionPolicy(sess *session) (wire.Policy, *Error) {
	gs, err := s.usableGrants(sess.ID)
	if err != nil {
		return wire.Policy{}, errorf(Internal, "", "list grants: %v", err)
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

// deviceFile is the device policy file in force, read at each use so that
// every setting is live on reload. Without one configured (a server in a
// test), it is the defaults' switches (confined, no ssh agent, unknown
// tools left to the client, the default retention), Config.Device's
// eligible roots and no extra roots.
func (s *Engine) deviceFile() devicepolicy.Policy {
	if s.cfg.DeviceFile == nil {
		return devicepolicy.Policy{Confinement: true, HoldOpens: true, UnknownTools: devicepolicy.AskClient,
			RetentionDays: devicepolicy.DefaultRetentionDays, EligibleReadOnly: s.cfg.Device.EligibleReadOnly}
	}
	return s.cfg.DeviceFile()
}

// livePolicy holds a session's compiledPolicy, replaced when the device
// policy changes.
type livePolicy = atomic.Pointer[compiledPolicy]

// compiledPolicy is a session's guard policy and the device policy
// settings it was compiled from.
type compiledPolicy struct {
	eligible, allowProtected []string
	c                        *guard.Compiled
}

// compiled is sess's guard policy under the device policy file in force:
// the one compiled before while the file's eligible roots and
// allow_protected are unchanged, else compiled again, so a reload reaches
// the next check of every session. A policy that does not compile is an
// error (the caller refuses), never the old one.
func (s *Engine) compiled(sess *session) (*guard.Compiled, error) {
	file := s.deviceFile()
	if p := sess.policy.Load(); p != nil && slices.Equal(p.eligible, file.EligibleReadOnly) &&
		slices.Equal(p.allowProtected, file.AllowProtected) {
		return p.c, nil
	}
	d := s.devicePolicyOf(file, sess.roots.Workspace)
	c, err := guard.Policy{SessionPolicy: sess.roots, DevicePolicy: d}.Compile(s.cfg.Home)
	if err != nil {
		return nil, fmt.Errorf("compile the policy of session %s: %w", sess.ID, err)
	}
	sess.policy.Store(&compiledPolicy{eligible: file.EligibleReadOnly, allowProtected: file.AllowProtected, c: c})
	return c, nil
}

// offerable is sess's guard.Compiled.Offerable under the policy in force;
// nothing is offerable when that policy does not compile.
func (s *Engine) offerable(sess *session) func(op guard.Op, path string, tree bool) bool {
	c, err := s.compiled(sess)
	if err != nil {
		s.log.Error("nothing is offerable", "session", sess.ID, "err", err)
		return func(guard.Op, string, bool) bool { return false }
	}
	return c.Offerable
}

// usableGrants lists the live grants the session may use: its own and this
// device's, minus any bound to another device.
func (s *Engine) usableGrants(session string) ([]guard.Scope, error) {
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

// Policy is the call's session's effective permissions now: its roots,
// the device's protected paths, and the read grants it may use.
func (s *Engine) Policy(c Call) (wire.Policy, *Error) { return s.sessionPolicy(c.sess) }
