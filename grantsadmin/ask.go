package grantsadmin

import (
	"errors"

	"pathgrant/wire"
)

// Asker is what a front end that can raise the person's own approval
// requests offers: the audit's "Allow…" (AskFromAudit, recordID being the
// record's number, grants.Record.Seq) and settings' new grant
// (AskForPath). The daemon raises a normal request in the inbox, and the
// person decides it there with the usual choices; nothing is granted by
// the call itself. Only the app's private link (applink.App) implements
// it: the shared socket has no such route, since any process of the user,
// an agent among them, can call the socket.
type Asker interface {
	AskFromAudit(recordID string) (wire.Request, error)
	AskForPath(op wire.Op, path string) (wire.Request, error)
}

// ErrAppOnly is what a front end without the app's link (`pathgrant
// settings` beside a headless daemon, the CLI) says when asked to raise
// such a request.
var ErrAppOnly = errors.New("allowing from the audit log or creating a grant needs pathgrant's app window: the shared socket does not offer it, so that no agent can raise a request of its own")

// NoAsker is an Asker that always refuses with ErrAppOnly, for a
// front end over the socket.
type NoAsker struct{}

// AskFromAudit refuses: see ErrAppOnly.
func (NoAsker) AskFromAudit(string) (wire.Request, error) { return wire.Request{}, ErrAppOnly }

// AskForPath refuses: see ErrAppOnly.
func (NoAsker) AskForPath(wire.Op, string) (wire.Request, error) { return wire.Request{}, ErrAppOnly }
