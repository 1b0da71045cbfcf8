package daemon

import (
	"errors"
	"log/slog"
	"path/filepath"

	"pathgrant/sandbox"
	"pathgrant/sandbox/heldfs"
)

// HeldDir is where the daemon on socket mounts its held-open file
// system: beside the socket, in the folder no view shows.
func HeldDir(socket string) string { return filepath.Join(filepath.Dir(socket), "held") }

// mountHeld mounts the held-open file system where the views can bind it
// (the full level), and says in the log which way opens are held and why.
func (d *Daemon) mountHeld(log *slog.Logger) {
	if d.Confinement.Level != sandbox.LevelFull {
		d.HeldErr = errors.New("no mount view at this confinement level")
		return
	}
	d.Held, d.HeldErr = heldfs.Mount(HeldDir(d.Socket), log)
	if d.HeldErr != nil {
		d.Held = nil
		log.Warn("opens under the approvable roots are held by the seccomp supervisor instead of pathgrant's file system", "why", d.HeldErr)
		return
	}
	log.Info("the approvable roots are served by pathgrant's file system", "at", d.Held.Dir())
}
