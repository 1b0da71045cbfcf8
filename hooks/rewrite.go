package hooks

import (
	"encoding/json"
	"os"
	"strings"

	"pathgrant/appdirs"
	"pathgrant/wire"
)

// Every shell command a hook lets through runs confined, by default,
// wherever the machine can confine (the daemon says so in the check's
// answer: ExecInfo) and the client can rewrite a tool's input: the command
// becomes `PATHGRANT_CAP=<capability> PATHGRANT_SOCKET=<socket>
// /abs/pathgrant-confine exec -- bash -c '<command>'`, the socket being the
// one the hook itself asked. The capability lets that one command have its
// sandbox prepared by the daemon once, within a minute; it is how
// hook-only sessions (no `pathgrant run`, no token) are confined. The device policy's
// `confinement = false` turns this off; the daemon then answers Confine
// false and the command runs as the client would run it, marked
// unconfined in the answer's reason.

// CanRewrite reports whether client's hook can run a shell command
// confined by rewriting it (the client table's Rewrites column).
func CanRewrite(client string) bool {
	c, err := LookupClient(client)
	return err == nil && c.Rewrites
}

// ExecWrap returns shell text that runs command in bash under `BIN exec`
// (bin, an absolute path: pathgrant-confine, or pathgrant) presenting
// capability cap to the daemon on socket (none: the default):
// `PATHGRANT_CAP=CAP [PATHGRANT_SOCKET=SOCKET] BIN exec -- bash -c
// '<command>'`, each part quoted so the shell passes them through
// unchanged.
func ExecWrap(bin, socket, cap, command string) string {
	return wire.CapEnv + "=" + wire.ShellQuote(cap) + socketPart(socket) + " " + wire.ShellQuote(bin) + " exec -- bash -c " + wire.ShellQuote(command)
}

// socketPart is the PATHGRANT_SOCKET assignment of a wrapper, or "".
func socketPart(socket string) string {
	if socket == "" {
		return ""
	}
	return " " + appdirs.SocketEnv + "=" + wire.ShellQuote(socket)
}

// shellText returns the client's shell command from the tool input, or
// "" when the call is not a shell command with a string "command" field.
func shellText(call Call) string {
	if !call.Shell || len(call.ToolInput) == 0 {
		return ""
	}
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(call.ToolInput, &in) != nil {
		return ""
	}
	return in.Command
}

// rewriteShell returns the client's tool input with its command replaced,
// other fields kept, or nil when there is no command to replace.
func rewriteShell(call Call, command string) json.RawMessage {
	var in map[string]any
	if json.Unmarshal(call.ToolInput, &in) != nil {
		return nil
	}
	if _, ok := in["command"].(string); !ok {
		return nil
	}
	in["command"] = command
	out, err := json.Marshal(in)
	if err != nil {
		return nil
	}
	return out
}

// confineShell turns an allowed shell command into its confined form
// where the daemon says to confine and the client can rewrite. It never
// lets a command the daemon wants confined through unconfined on a client
// that can rewrite: without a capability or a pathgrant binary to run it
// under, or where the client would hand the wrapper to a shell that reads
// it otherwise (shell.go; getenv is the client's environment), the call
// is denied.
func confineShell(call Call, v Verdict, answers []wire.Answer, socket string, findBin func() (string, error), getenv func(string) string) Verdict {
	text := shellText(call)
	if !v.Allow || text == "" || call.NoFiles || len(answers) == 0 || call.Event == "PermissionRequest" {
		return v
	}
	info := answers[len(answers)-1].Exec
	switch {
	case info == nil:
		return Verdict{Reason: "pathgrant: the daemon did not say how to confine this command: denied"}
	case !info.Confine:
		return v // the daemon's reason already says UNCONFINED
	case !CanRewrite(call.Client):
		// The guard proves what a command names, not what the programs it
		// runs then do (a workspace script, a build): that is the
		// confinement's promise, which a command this client runs itself
		// would not have. The bridge's shell tool runs it confined.
		return Verdict{Reason: "pathgrant: " + clientTitle(call.Client) + " cannot hand a shell command to pathgrant to run confined, " +
			"and every agent command on this machine runs confined: denied; run it with pathgrant's MCP tool execute_shell_command " +
			"(pathgrant install-mcp " + call.Client + ")"}
	case info.Capability == "":
		return Verdict{Reason: "pathgrant: no exec capability for a command that must run confined: denied"}
	}
	if c, err := LookupClient(call.Client); err == nil {
		if reason := shellRefusal(c, localHost(getenv), call.Cwd); reason != "" {
			return Verdict{Reason: reason}
		}
	}
	bin, err := findBin()
	if err != nil {
		return Verdict{Reason: "pathgrant: cannot run the command confined (" + err.Error() + "): denied"}
	}
	v.Rewrite = rewriteShell(call, ExecWrap(bin, socket, info.Capability, text))
	if v.Rewrite == nil {
		return Verdict{Reason: "pathgrant: cannot rewrite this shell command to run confined: denied"}
	}
	v.Reason += " (runs confined, " + string(info.Level) + ")"
	return v
}

// clientTitle is the client's name as its makers write it.
func clientTitle(name string) string {
	if c, err := LookupClient(name); err == nil {
		return c.Title
	}
	return name
}

// FindExecBinary returns the absolute path of the binary that runs
// confined commands: pathgrant-confine (small, so it starts fast) next to
// this hook binary or on an absolute $PATH entry, else pathgrant found the
// same way.
func FindExecBinary() (string, error) {
	if bin, err := appdirs.FindBinary("pathgrant-confine", os.Getenv); err == nil {
		return bin, nil
	}
	return appdirs.FindBinary("pathgrant", os.Getenv)
}

// UnwrapExec returns the command inside text when text is exactly the
// wrapper ExecWrap makes for bin (FindExecBinary's) with a capability; ok
// is false for anything else, including the same shape naming another
// binary: a wrapper is trusted only when it runs pathgrant's own front
// end, which confines what it runs.
func UnwrapExec(text, bin string) (inner string, ok bool) {
	rest, ok := strings.CutPrefix(text, wire.CapEnv+"='")
	if !ok || bin == "" {
		return "", false
	}
	cap, rest, ok := strings.Cut(rest, "'")
	if !ok || !capabilityLike(cap) {
		return "", false
	}
	socket := ""
	if after, found := strings.CutPrefix(rest, " "+appdirs.SocketEnv+"='"); found {
		if socket, rest, ok = strings.Cut(after, "'"); !ok {
			return "", false
		}
	}
	quoted, ok := strings.CutPrefix(rest, " "+wire.ShellQuote(bin)+" exec -- bash -c '")
	if !ok || !strings.HasSuffix(quoted, "'") {
		return "", false
	}
	inner = strings.ReplaceAll(quoted[:len(quoted)-1], `'\''`, "'")
	if ExecWrap(bin, socket, cap, inner) != text { // an unescaped quote inside: not a wrapper we made
		return "", false
	}
	return inner, true
}

// capabilityLike reports whether s has the shape of an exec capability
// (the daemon issues 64 hex digits).
func capabilityLike(s string) bool {
	if len(s) < 16 || len(s) > 128 {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') })
}
