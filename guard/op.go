package guard

import "fmt"

// Op is one kind of file access. The guard reasons about every command as a
// list of (Op, path) accesses.
type Op string

// The operations pathgrant knows. Only OpRead can ever be offered for approval
// outside the workspace.
const (
	OpRead    Op = "read"
	OpWrite   Op = "write"
	OpMove    Op = "move"
	OpDelete  Op = "delete"
	OpExecute Op = "execute"
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

// Mutates reports whether op changes the file system at its path.
func (op Op) Mutates() bool {
	return op == OpWrite || op == OpMove || op == OpDelete
}
