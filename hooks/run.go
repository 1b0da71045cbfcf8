package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"pathgrant/appdirs"
	"pathgrant/wire"
)

// DefaultWait is how long a hook waits for the person's decision on an
// eligible denial before it denies, telling the model that the person
// was asked and to retry once they answered. It stays below every client's hook timeout: 60 s is Claude
// Code's default, and the one install-hooks writes for Codex, Cursor,
// Gemini (60000 ms) and the Pi extension.
const DefaultWait = 50 * time.Second

// answerGrace is how long past the wait the hook still waits for the
// daemon's answer (its own evaluation and the write back) before it gives
// up and denies: DefaultWait plus this stays below 60 s.
const answerGrace = 5 * time.Second

// maxInput bounds the hook JSON read from stdin (a Write carries the whole
// file's content).
const maxInput = 32 << 20

// Verdict is pathgrant's answer to one tool call.
type Verdict struct {
	Allow bool
	// Granted: allowed because of the user: a grant was used, or the user
	// approved this call while the hook waited.
	Granted bool
	Reason  string
	// Rewrite is the tool input to run instead: the shell command under
	// `pathgrant exec` (see confineShell).
	Rewrite json.RawMessage
	// Defer: pathgrant makes no decision (a tool known to touch no local
	// file, another server's MCP tool under unknown_tools = "ask-client",
	// a tool it cannot map under unmapped_tools = "ask-client"), and the
	// client's own permission flow decides. Allow is false, so an adapter
	// that cannot defer (Pi, which has no permission flow of its own)
	// denies.
	Defer bool
}

// Output is what the hook process writes and its exit status.
type Output struct {
	Stdout []byte
	Stderr string
	Exit   int
}

func jsonOutput(v any) Output {
	data, err := json.Marshal(v)
	if err != nil { // the output types always marshal
		panic(err)
	}
	return Output{Stdout: append(data, '\n')}
}

// blockOutput is the answer to input that could not be understood: exit
// status 2 with the reason on stderr, which Claude Code, Codex, Gemini CLI
// and Cursor all take as a block whatever the event, and which the Pi
// extension blocks on too.
func blockOutput(reason string) Output {
	return Output{Stderr: reason + "\n", Exit: 2}
}

// blocker is an adapter whose client ignores the hook's exit status
// (Cline): input it cannot understand is blocked in the client's own
// output instead.
type blocker interface {
	block(reason string) Output
}

// blockFor is the answer to input the adapter could not understand.
func blockFor(ad adapter, reason string) Output {
	if b, ok := ad.(blocker); ok {
		return b.block(reason)
	}
	return blockOutput(reason)
}

// adapter is one client's hook protocol: its JSON read into a Call, and a
// verdict written back in its own output format.
type adapter interface {
	parse(raw []byte) (Call, error)
	render(c Call, v Verdict) Output
}

// Options is one hook invocation.
type Options struct {
	Client string
	Stdin  io.Reader
	Getenv func(string) string // os.Getenv when nil
	Socket string              // appdirs.Socket(Getenv) when empty
	// ExecBinary finds the pathgrant binary confined commands run under;
	// FindExecBinary when nil.
	ExecBinary func() (string, error)
}

// Result is the hook's output with what led to it, for tests.
type Result struct {
	Output
	Call    Call
	Verdict Verdict
	Answers []wire.Answer
	Err     error // the failure that decided a deny, if any
}

// Run answers one hook invocation. It never returns an allow that the
// daemon did not give.
func Run(ctx context.Context, o Options) Result {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	client, err := LookupClient(o.Client)
	if err != nil {
		return Result{Output: blockOutput("pathgrant-hook: " + err.Error() + ": denied")}
	}
	ad := client.adapter
	raw, err := io.ReadAll(io.LimitReader(o.Stdin, maxInput+1))
	switch {
	case err != nil:
		return Result{Output: blockFor(ad, "pathgrant: cannot read the hook input: "+err.Error()+": denied"), Err: err}
	case len(raw) > maxInput:
		return Result{Output: blockFor(ad, "pathgrant: hook input over 32 MiB: denied"), Err: errMalformed}
	}
	if end, ok := parseEnd(client.Name, bytes.TrimSpace(raw)); ok {
		return runEnd(ctx, end, getenv, appdirs.SocketOr(o.Socket, getenv))
	}
	call, err := ad.parse(bytes.TrimSpace(raw))
	if err == nil && call.MCP {
		v, answers, err := mcpVerdict(ctx, call, getenv, appdirs.SocketOr(o.Socket, getenv))
		return Result{Output: ad.render(call, v), Call: call, Verdict: v, Answers: answers, Err: err}
	}
	if errors.Is(err, errUnknownTool) {
		v, answers, err := unmappedVerdict(ctx, call, getenv, appdirs.SocketOr(o.Socket, getenv))
		return Result{Output: ad.render(call, v), Call: call, Verdict: v, Answers: answers, Err: err}
	}
	if errors.Is(err, errTwoKeys) {
		return Result{Output: blockFor(ad, twoKeysReason(client, err)), Err: err}
	}
	if err != nil {
		return Result{Output: blockFor(ad, fmt.Sprintf("pathgrant: %s hook input not understood (%v): denied", o.Client, err)), Err: err}
	}
	describeShell(&call, getenv)
	res := Result{Call: call}
	res.Verdict, res.Answers, res.Err = decide(ctx, call, getenv, appdirs.SocketOr(o.Socket, getenv))
	findBin := o.ExecBinary
	if findBin == nil {
		findBin = FindExecBinary
	}
	res.Verdict = confineShell(call, res.Verdict, res.Answers, appdirs.SocketOr(o.Socket, getenv), findBin, getenv)
	res.Output = ad.render(call, res.Verdict)
	return res
}

// decide asks the daemon about each access of the call, in order, and
// stops at the first that is not allowed.
func decide(ctx context.Context, call Call, getenv func(string) string, socket string) (Verdict, []wire.Answer, error) {
	if call.NoFiles {
		return Verdict{Defer: true, Reason: "pathgrant: " + call.Tool + " touches no local file: left to " + call.Client + "'s own permission flow"}, nil, nil
	}
	if len(call.Accesses) == 0 {
		return Verdict{Reason: "pathgrant: nothing to check in this call: denied"}, nil, errMalformed
	}
	wait := waitBudget(getenv)
	start := time.Now()
	ctx, cancel := context.WithDeadline(ctx, start.Add(wait+answerGrace))
	defer cancel()
	token := getenv(appdirs.TokenEnv)
	v := Verdict{Allow: true}
	var answers []wire.Answer
	for _, a := range call.Accesses {
		req := wire.CheckRequest{
			ClientSession: call.ClientSession, EnvSession: getenv(appdirs.SessionEnv), Agent: call.Client, Tool: call.Tool,
			RequestID: call.RequestID, Op: a.Op, Path: a.Path, Command: a.Command, Input: a.Input.words(getenv("HOME")), Cwd: call.Cwd,
			WorkspaceRoots: call.WorkspaceRoots, WaitMS: int(max(wait-time.Since(start), 0) / time.Millisecond),
			Purpose: call.Purpose, ToolTimeoutMS: int(call.ToolTimeout / time.Millisecond),
		}
		if a.Command != "" && runsConfined(call) {
			req.ExecCommand = shellText(call) // asks for the capability the rewritten command presents
		}
		ans, err := check(ctx, socket, token, req)
		if err != nil {
			return Verdict{Reason: failureReason(err)}, answers, err
		}
		answers = append(answers, ans)
		if !ans.Allowed() {
			return Verdict{Reason: "pathgrant: " + ans.Reason}, answers, nil
		}
		switch {
		case ans.Pending != "":
			v.Granted, v.Reason = true, "pathgrant: approved by the person in pathgrant's window"
		case len(ans.Grants) > 0:
			v.Granted, v.Reason = true, "pathgrant: allowed by grant "+strings.Join(ans.Grants, ", ")
		case !v.Granted:
			v.Reason = "pathgrant: " + ans.Reason
		}
	}
	return v, answers, nil
}

// runsConfined reports whether call's shell command will run confined
// whatever this hook answers, so that its check may count what the
// confinement view opens (ExecCommand): a client that rewrites it
// (confineShell), except at a PermissionRequest, which is never
// rewritten: there only a command already in this build's wrapper
// (Call.Wrapped) runs confined; any other would run as it stands.
func runsConfined(call Call) bool {
	if !CanRewrite(call.Client) {
		return false
	}
	return call.Event != "PermissionRequest" || call.Wrapped
}

// waitBudget is $PATHGRANT_WAIT_MS when it is a number of milliseconds
// (0: do not wait), else DefaultWait.
func waitBudget(getenv func(string) string) time.Duration {
	if s := getenv(appdirs.WaitEnv); s != "" {
		if ms, err := strconv.Atoi(s); err == nil && ms >= 0 {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return DefaultWait
}

// check sends one check request to the daemon at socket, with the
// session token when there is one, and returns its answer. The context's
// deadline bounds the whole exchange, including a wait for the person's
// decision.
func check(ctx context.Context, socket, token string, req wire.CheckRequest) (wire.Answer, error) {
	var ans wire.Answer
	c := wire.Client{Socket: socket, Token: token}
	if err := c.Do(ctx, "POST", wire.PathCheck, req, &ans); err != nil {
		return ans, err
	}
	if ans.Decision != wire.Allow && ans.Decision != wire.Deny {
		return wire.Answer{}, fmt.Errorf("pathgrant daemon at %s: answer has no decision", socket)
	}
	return ans, nil
}

// failureReason says why a check could not be answered; the call is denied.
func failureReason(err error) string {
	var de *wire.DaemonError
	var ue *wire.UnreachableError
	switch {
	case errors.As(err, &ue):
		return wire.NotRunning(ue.Socket) + ": denied; ask the person to start it, then retry once"
	case errors.As(err, &de) && de.Status == 409:
		return "pathgrant: session conflict: " + de.Msg + ": denied; do not retry"
	case errors.As(err, &de):
		return "pathgrant: the daemon refused the check: " + de.Msg + ": denied; do not retry"
	case errors.Is(err, context.DeadlineExceeded):
		return "pathgrant: no answer from pathgrant's daemon in time: denied; retry once"
	}
	return "pathgrant: " + err.Error() + ": denied; do not retry"
}

const usage = `usage: pathgrant-hook CLIENT [--socket PATH] < hook-input.json

CLIENT is one of: %s.
Reads the client's hook JSON on stdin, asks the pathgrant daemon, and
answers in the client's own format. Environment: PATHGRANT_SOCKET,
PATHGRANT_SESSION, PATHGRANT_TOKEN, PATHGRANT_WAIT_MS.
`

// Main is the pathgrant-hook command: it returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprintf(stdout, usage, strings.Join(Clients(), ", "))
		return 0
	}
	o := Options{Stdin: stdin}
	if len(args) > 0 {
		o.Client = args[0]
	}
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--socket" && i+1 < len(args):
			i++
			o.Socket = args[i]
		case strings.HasPrefix(a, "--socket="):
			o.Socket = strings.TrimPrefix(a, "--socket=")
		default:
			fmt.Fprintf(stderr, "pathgrant-hook: unexpected argument %q: denied\n", a)
			return 2
		}
	}
	res := Run(context.Background(), o)
	if len(res.Stdout) > 0 {
		if _, err := stdout.Write(res.Stdout); err != nil {
			fmt.Fprintf(stderr, "pathgrant: cannot write the answer (%v): denied\n", err)
			return 2
		}
	}
	if res.Stderr != "" {
		io.WriteString(stderr, res.Stderr)
	}
	return res.Exit
}
