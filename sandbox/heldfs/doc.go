// Package heldfs serves the approvable roots (by default, Downloads) into
// confined commands' views from pathgrant's own FUSE file system, so that
// only an open under those roots waits for the person and nothing else a
// command opens pays for it.
//
// The daemon mounts one file system (Mount), read-only, with Debian's
// setuid fusermount3, in its own runtime folder, which no view shows.
// Each prepared command whose opens are held gets a token (Register): the
// view binds TOKEN/0, TOKEN/1, … of the mount at the command's approvable
// roots. Names and metadata are answered at once, from the real folder
// each root pins (an O_PATH descriptor opened when the command is
// registered), resolved beneath it with no link followed (openat2
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS): a symbolic link inside a root is
// shown as a link, which the kernel then resolves inside the view, where
// what it points to is as hidden as before. Opening a file, or listing a
// folder, asks the daemon for that read on the session's behalf (the same
// check, request and rules as every other door) and waits; what the person
// allowed is opened from the pinned root, and only when it is still the
// very file that was looked up; anything else fails with EACCES and one
// line for the command's end. Writes, creates, renames and deletes never
// reach the server: the mount is read-only.
//
// Only the command's own sandbox is answered. The kernel reports each
// request's caller by pid; the caller must be in the PID namespace and
// the mount namespace that bubblewrap made together, bubblewrap being a
// child of the command's holder (its front end, or the daemon itself)
// (caller_linux.go). The unconfined agent, another session's command, and
// any other process of the person's get EACCES for everything but the
// mount's root, and raise no request; so does one that joins the
// sandbox's PID namespace alone. One of the person's own processes that
// joins both namespaces with setns is, to the kernel, inside the sandbox,
// as one that ptraces a sandboxed process is: it gains nothing the
// person's uid cannot read directly.
//
// What the file system keeps is bounded and dropped with the command:
// names looked up (per command and in all), open files (one descriptor
// per file however often it is opened, per command and in all, below the
// daemon's own descriptor limit), a listing's entries; past a bound a
// call fails and one line says which.
//
// Where FUSE cannot be had (no /dev/fuse the person may open, no
// fusermount3, a mount refused), the daemon holds opens with the seccomp
// supervisor instead (package sandbox/supervise).
package heldfs
