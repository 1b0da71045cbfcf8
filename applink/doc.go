// Package applink is the private channel between the daemon and the tray
// app it starts. The daemon is the always-on owner of every request; the
// app is a client that may crash, be killed or quit without losing one.
//
// Becoming the app is a door: the app decides without an approval code,
// so a process that could register as it could approve its own requests.
// There is no registration on the shared socket. The daemon starts the app
// itself (Link), with an environment it builds from a short list (no
// LD_PRELOAD or anything else a caller could plant). The link is two
// socket pairs, the events the app shows, in order, and the calls it
// makes (deciding, the settings window's reads and revokes, raising the
// person's own requests from the audit log and settings, pausing,
// quitting), made only once the app is undumpable (boot.go), so that not
// even a process of the same user can take a descriptor of it or read the
// app's memory. Raising the person's own request is a door too: such a
// request may be of a path no agent's denial offers, so it exists here
// and nowhere on the shared socket.
package applink
