// Package wire is pathgrant's socket protocol: every type, header, route
// path, confinement level and error shape that crosses the daemon's Unix
// socket, and the one client that speaks it (HTTP/1.1 on a raw socket,
// with its dial and retry policy and its error types).
//
// It is a leaf: it imports the standard library only, so the hook and the
// confinement front end, which must start in a few milliseconds, link it
// without pulling in the daemon. The daemon's HTTP handlers (package ipc),
// the Go client and the hook all decode the same types, so what one side
// writes the other cannot misread.
package wire
