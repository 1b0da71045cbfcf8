package wire

// The words the guard decides in and the socket carries: operations,
// verdicts, the rule that decided, grant kinds and scopes. Package guard
// reasons with these very types.

// Op is one kind of file access.
type Op string

// The operations pathgrant knows. Only OpRead can ever be offered for
// approval outside the workspace.
const (
	OpRead    Op = "read"
	OpWrite   Op = "write"
	OpMove    Op = "move"
	OpDelete  Op = "delete"
	OpExecute Op = "execute"
	// OpConnect is a confined command's connection through pathgrant's
	// proxy; its "path" is the destination, HOST:PORT (guard.Destination).
	// Only the daemon's proxy asks it: no check route takes it.
	OpConnect Op = "connect"
)

// Mutates reports whether op changes the file system at its path.
func (op Op) Mutates() bool {
	return op == OpWrite || op == OpMove || op == OpDelete
}

// Verdict is the outcome of an evaluation.
type Verdict string

// The two verdicts. There is no third: anything unproven is a deny.
const (
	Allow Verdict = "allow"
	Deny  Verdict = "deny"
)

// Rule names the part of the policy that decided an access, so that a
// denial can say which scope denied it.
type Rule string

// The rules, in the order the guard applies them.
const (
	RuleDevice       Rule = "device_file"
	RuleProtected    Rule = "protected"
	RuleBlockedWrite Rule = "blocked_write"
	RuleWorkspace    Rule = "workspace"
	RuleReadOnly     Rule = "read_only"
	RuleGrant        Rule = "grant"
	RuleOutside      Rule = "outside_policy"
	RuleUnproven     Rule = "unproven"
	// RuleUnmapped: a tool the hook cannot map to the files it touches,
	// refused unless the device policy lets the client ask (unmapped_tools).
	RuleUnmapped Rule = "unmapped_tool"
	// RuleUnknownMCP: another MCP server's tool, whose file accesses
	// cannot be known, refused when the device policy says so
	// (unknown_tools).
	RuleUnknownMCP Rule = "unknown_mcp_tool"
)

// GrantKind says whether a grant covers one exact path or a folder's
// subtree.
type GrantKind string

// The grant kinds.
const (
	KindFile   GrantKind = "file"
	KindFolder GrantKind = "folder"
)

// Scope is what an approval would grant.
type Scope struct {
	Op   Op        `json:"op"`
	Path string    `json:"path"`
	Kind GrantKind `json:"kind"`
}
