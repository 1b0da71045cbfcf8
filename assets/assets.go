// Package assets holds pathgrant's icons and desktop entry, embedded so the
// binary needs no files beside it.
package assets

import _ "embed"

// Icon is the application and tray icon (PNG).
//
//go:embed icon.png
var Icon []byte

// PendingIcon is the tray icon while approval requests are waiting (PNG).
//
//go:embed icon-pending.png
var PendingIcon []byte

// DesktopEntry is the .desktop file; install-desktop fills in Exec.
//
//go:embed pathgrant.desktop
var DesktopEntry string

// SocketUnit is the systemd user socket unit: systemd holds pathgrant's
// socket and starts the daemon at the first connection.
//
//go:embed pathgrant.socket
var SocketUnit string

// ServiceUnit is the systemd user service the socket starts; installers
// fill in ExecStart's binary.
//
//go:embed pathgrant.service
var ServiceUnit string
