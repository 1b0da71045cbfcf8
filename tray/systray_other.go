//go:build !linux

package tray

// newSystrayHost: outside Linux the tray is Fyne's (its menu is the
// system's own there, not a D-Bus menu a panel reads).
func newSystrayHost() (host, bool) { return nil, false }
