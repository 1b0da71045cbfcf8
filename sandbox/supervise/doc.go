// Package supervise holds, in the middle of a confined command, the one
// system call that needs the person: a read-only open of a file under an
// approvable root (by default, Downloads). The inner step installs a
// seccomp filter that sends the command's opens to a listener held
// outside the sandbox (Install); the supervisor (Supervisor.Serve) lets
// every other open go on to the kernel at once, and for a held one asks
// the daemon for that read on the session's behalf. When the person
// allows it, the supervisor opens the file itself, refusing links and
// anything that is not the very file the command named, and hands the
// descriptor to the waiting call (SECCOMP_IOCTL_NOTIF_ADDFD), which
// returns it as if the open had succeeded; otherwise the call fails with
// EACCES. Nothing is retried and nothing replayed.
//
// The supervisor only ever adds a descriptor the person approved: an open
// it does not take over continues to the kernel, where the mount view and
// Landlock decide as they always do. Bypassing it (another architecture's
// system calls, a call it does not trap) therefore gains nothing.
package supervise
