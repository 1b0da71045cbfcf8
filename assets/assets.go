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
