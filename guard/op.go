package guard

import (
	"fmt"

	"pathgrant/wire"
)

// Op is one kind of file access. The guard reasons about every command as a
// list of (Op, path) accesses; the type is the socket's (package wire).
type Op = wire.Op

// The operations pathgrant knows. Only OpRead can ever be offered for approval
// outside the workspace.
const (
	OpRead    = wire.OpRead
	OpWrite   = wire.OpWrite
	OpMove    = wire.OpMove
	OpDelete  = wire.OpDelete
	OpExecute = wire.OpExecute
)

// Ops lists every operation in a stable order.
var Ops = []Op{OpRead, OpWrite, OpMove, OpDelete, OpExecute}

// ParseOp returns the Op named s, or an error naming the valid ones.
func ParseOp(s string) (Op, error) {
	for _, op := range Ops {
		if string(op) == s {
			return op, nil
		}
	}
	return "", fmt.Errorf("unknown op %q (want read, write, move, delete or execute)", s)
}
