package engine

import "pathgrant/wire"

// What the person reads of a request comes from the agent: every piece
// of it is made printable (wire.Printable: no escape, newline, bidi or
// zero-width trick) and bounded, once, here, so no front end (the inbox,
// a notification, the CLI's tables) can show it otherwise.

// maxShownCommand bounds the command a request shows; maxShownName an
// agent's or workflow's name.
const (
	maxShownCommand = 4096
	maxShownName    = 64
)

// agentCommand is a shell command as the agent wrote it: without the
// prefix a hook adds to run it in the client's directory, which the
// person never typed and which pushes the command out of sight. A search
// tool's recursive read (wire.TreeRead) is no command anyone wrote: with
// the tool's own input to show instead, it is not shown.
func agentCommand(req wire.CheckRequest) string {
	if req.Input != "" && wire.IsTreeRead(req.Command) {
		return ""
	}
	return wire.Cut(wire.Printable(wire.AgentCommand(req.Command)), maxShownCommand)
}

// cleanInput makes a tool's own input safe to show, cut to wire.MaxInput
// bytes. It is shown, never checked.
func cleanInput(s string) string { return wire.Cut(wire.Printable(s), wire.MaxInput) }

// shownName is an agent's or workflow's name as every label shows it:
// printable, one line, short.
func shownName(s string) string { return wire.Cut(wire.Printable(s), maxShownName) }
