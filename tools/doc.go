// Package tools runs the tools pathgrant offers an agent session itself
// (execute_shell_command, read_file, write_file, list_directory), so that
// a tool call is checked and executed under one session identity from
// start to end.
//
// The caller (the daemon) resolves the session once and builds a Session
// from it; every step of a call then uses that value and nothing else:
// Prepare validates the arguments and names the guard request, Evaluate
// asks the guard, and Execute runs the call only on an allow decision. A
// denial that can be approved is the caller's to turn into an approval
// request and wait on; after an approval the caller evaluates again and
// executes. Nothing is ever run later on its own.
//
// Files are read, written and listed natively, opened by the canonical
// path the guard judged and refusing any symlink on the way, so a link
// swapped in after the check cannot redirect the call. Shell commands run
// through a Confiner: in the daemon, its one door (the sandbox the
// Launcher prepares for every agent command, run by the front end as the
// daemon's child).
//
// This package imports guard only: package sandbox imports ipc, and ipc
// imports tools, so the confinement is handed in rather than imported.
package tools
