package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"pathgrant/devicepolicy"
	"pathgrant/guard"
	"pathgrant/guard/protected"
	"pathgrant/sandbox/seatbelt"
	"pathgrant/wire"
)

// launchSeatbelt prepares req's sandbox on macOS: the same view as on
// Linux, built from the same policy, written as a Seatbelt profile
// (package seatbelt) that sandbox-exec runs the command under. There is
// no inner step and no job: Seatbelt is applied before the command
// starts, by sandbox-exec, and nothing is mounted or made in the
// workspace.
func (l Launcher) launchSeatbelt(pol wire.Policy, file devicepolicy.Policy, req wire.ExecRequest) (Launch, error) {
	if !filepath.IsAbs(req.Path) || len(req.Argv) == 0 {
		return Launch{}, fmt.Errorf("prepare the sandbox: the command %q at %q is not an absolute program path", req.Argv, req.Path)
	}
	getenv := envLookup(req.Env)
	tmp, err := SessionTmpDir(TmpBase(getenv), pol.Session)
	if err != nil {
		return Launch{}, err
	}
	in := Input{Policy: pol, Used: pol.Used, TmpDir: tmp, Device: Device{Toolchains: file.Toolchains,
		Caches: file.Caches, ReadOnlyFiles: file.ReadOnlyFiles, SSHAgent: file.SSHAgent, AllowProtected: file.AllowProtected}}
	fsys := NewMemoFS(OSFS{})
	cfg := seatbeltViewConfig(fsys, l.Socket, file.SSHAgent, Environ{Getenv: getenv, Home: getenv("HOME")}, Environ{Getenv: l.Getenv, Home: l.Home})
	view, err := BuildView(in, cfg, fsys)
	if err != nil {
		return Launch{}, err
	}
	steps, err := seatbeltSteps(view.Mounts)
	if err != nil {
		return Launch{}, err
	}
	steps = append(steps, unheld(in, view, fsys)...)
	steps = append(steps, topMembers(pol.Workspace, file.AllowProtected, steps, fsys)...)
	steps = append(steps, socketSteps(l.Socket, steps, fsys)...)
	profile, err := seatbelt.Profile(seatbelt.Input{Steps: steps, Developer: l.Confinement.Developer, Terminals: req.Terminals})
	if err != nil {
		return Launch{}, fmt.Errorf("prepare the sandbox: %w", err)
	}
	p := wire.Prepared{Level: LevelSeatbelt, Seatbelt: profile, TmpDir: tmp, SSHAgent: file.SSHAgent,
		Workspace: pol.Workspace, AllowProtected: file.AllowProtected}
	outside := func(paths []string) []string {
		return in.Outside(slices.DeleteFunc(slices.Clone(paths), func(p string) bool {
			return filepath.IsAbs(p) && seatbelt.SystemReads(filepath.Clean(p))
		}))
	}
	return Launch{Prepared: p, Outside: outside}, nil
}

// seatbeltViewConfig is the view's configuration for a Seatbelt profile:
// no binaries for an inner step, and hidden what each environment names
// (WithHidden), each place also as the kernel resolves it (Seatbelt
// matches /private/var/…, never /var/…).
func seatbeltViewConfig(fsys ViewFS, socket string, sshAgent bool, envs ...Environ) ViewConfig {
	cfg := WithHidden(ViewConfig{}, socket, sshAgent, envs...)
	cfg.Hidden = (&builder{fs: fsys}).canonicalAll(cfg.Hidden)
	if cfg.SSHAgentSocket != "" {
		if c, err := fsys.Canonical(cfg.SSHAgentSocket); err == nil {
			cfg.SSHAgentSocket = c
		}
	}
	return cfg
}

// unheld are the blocked-write and protected paths of the policy that the
// view could not hold itself (not in View.ByMount) and that lie in, or
// hold, a write area: on Linux the Landlock rules keep them unwritten
// (Build), here a deny does.
func unheld(in Input, view View, fsys ViewFS) []seatbelt.Step {
	b := &builder{fs: fsys}
	areas := slices.Concat(in.Policy.Workspace, b.canonicalOnly(in.Device.Caches))
	if in.TmpDir != "" {
		areas = append(areas, in.TmpDir)
	}
	var out []seatbelt.Step
	for _, p := range b.canonicalAll(slices.Concat(in.Policy.Protected, in.Policy.BlockedWrite)) {
		related := slices.ContainsFunc(areas, func(a string) bool {
			a = filepath.Clean(a)
			return guard.Within(a, p) || guard.Within(p, a)
		})
		if related && !slices.Contains(view.ByMount, p) {
			out = append(out, seatbelt.Step{Path: p, Kind: seatbelt.NoWrite, Why: "blocked"})
		}
	}
	return out
}

// topMembers refuses every member of the protected set that is matched
// anywhere (package guard/protected) at the top of each workspace, present
// or absent, less those the device policy opens and those a step already
// refuses (a deny matches every letter case). The Linux view holds only
// the absent ones tools run by themselves (a mount each costs bubblewrap
// time) and sandbox/afterrun moves the others aside after the command; a
// Seatbelt deny costs nothing, so none is made at all.
func topMembers(workspace, open []string, steps []seatbelt.Step, fsys ViewFS) []seatbelt.Step {
	refused := func(p string) bool {
		return slices.ContainsFunc(steps, func(s seatbelt.Step) bool {
			return (s.Kind == seatbelt.NoWrite || s.Kind == seatbelt.Hidden) && strings.EqualFold(s.Path, p)
		})
	}
	var out []seatbelt.Step
	for _, w := range workspace {
		w = filepath.Clean(w)
		if t, err := fsys.Type(w); err != nil || t != TypeDir {
			continue
		}
		for _, m := range protected.Members() {
			opened := slices.ContainsFunc(open, func(k string) bool { return strings.EqualFold(k, m.Key) })
			if p := filepath.Join(w, m.Name); m.Kind == protected.Anywhere && !opened && !refused(p) {
				out = append(out, seatbelt.Step{Path: p, Kind: seatbelt.NoWrite, Why: "protected (any case)"})
			}
		}
	}
	return out
}

// socketSteps hide the daemon's socket and its folder last, whatever the
// steps before show: the folder only when no step shows something inside
// it (the session's tmp dir may lie in $XDG_RUNTIME_DIR beside it).
func socketSteps(socket string, steps []seatbelt.Step, fsys ViewFS) []seatbelt.Step {
	if !filepath.IsAbs(socket) {
		return nil
	}
	b := &builder{fs: fsys}
	var out []seatbelt.Step
	for _, dir := range b.canonicalAll([]string{filepath.Dir(socket)}) {
		holds := slices.ContainsFunc(steps, func(s seatbelt.Step) bool {
			return s.Kind != seatbelt.Hidden && s.Kind != seatbelt.NoWrite && guard.Within(dir, s.Path)
		})
		if !holds && dir != "/" {
			out = append(out, seatbelt.Step{Path: dir, Kind: seatbelt.Hidden, Why: "pathgrant's socket folder"})
		}
	}
	for _, s := range b.canonicalAll([]string{socket}) {
		out = append(out, seatbelt.Step{Path: s, Kind: seatbelt.Hidden, Why: "pathgrant's socket"})
	}
	return out
}
