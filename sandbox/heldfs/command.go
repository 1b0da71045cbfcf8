package heldfs

import (
	"pathgrant/sandbox/supervise"
	"pathgrant/wire"
)

// Command is one confined command the file system serves, under the token
// its view binds.
type Command struct {
	// Roots are the approvable roots, canonical folders; the view binds
	// the mount's TOKEN/i at Roots[i].
	Roots []string
	// Granted are the read grants the command started with: a file they
	// cover is served without asking.
	Granted []wire.Scope
	// Ask asks the daemon, for the command's session, to read a file or
	// folder, and waits for the person.
	Ask supervise.Asker
	// Say keeps the one line a refused open adds to the command's end.
	Say func(path, line string)
	// Holder is the process that starts the command's bubblewrap: its
	// front end, or the daemon for its own tool commands. Only the
	// processes in a PID namespace bubblewrap made as its child are
	// answered.
	Holder Holder
	// Bwrap is the bubblewrap binary the holder runs: the first process
	// outside the sandbox's PID namespace must be running it, so a
	// namespace the holder made some other way is not the sandbox.
	Bwrap string
	// Limits bound what the command can make the server ask.
	Limits supervise.Limits
}

// Holder is a process, by pid and start time (/proc/PID/stat's 22nd
// field), which a reused pid does not have.
type Holder struct {
	PID   int32
	Start uint64
}
