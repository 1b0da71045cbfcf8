package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/engine"
	"pathgrant/guard"
	"pathgrant/hooks"
	"pathgrant/ipc"
	"pathgrant/sandbox"
	"pathgrant/sandbox/frontend"
	"pathgrant/tools"
	"pathgrant/wire"
)

// escaped is what every escape and every piece of real work prints when
// it got through: a refused escape never prints it.
const escaped = "DOOR-WALK-THROUGH"

// started is what every walked script prints first: an escape that was
// refused only because its door did not run it proves nothing.
const started = "DOOR-WALK-STARTED"

// walked is what one command run through a door printed.
type walked struct {
	out string // stdout and stderr
	ran bool   // it ran and exited 0
}

// doorWalk is the environment every door is walked in: the exec
// environment's daemon and session, a git repository as the workspace,
// a fake agent process with a secret in its environment, and another
// session with a pending request.
type doorWalk struct {
	*execEnv
	bin   string
	agent int // the fake agent process's pid
	other wire.SessionResponse
	mcp   *sdk.ClientSession
	x11   string
	// tcpX is the walk's X server on TCP (tcpDisplay), started once.
	tcpX        sync.Once
	tcpXDisplay string
	mu          sync.Mutex
	n           int
	// heldBy is what holds the walk's opens (newHeldWalk), which every
	// held request must name.
	heldBy string
}

// doorRunner runs script (bash text) through one door, in the workspace.
type doorRunner func(w *doorWalk, t *testing.T, script string) walked

// doorRunners are the ways to walk each door; the hook door is walked
// once for each client whose hook rewrites shell commands.
func doorRunners() map[engine.Door]doorRunner {
	return map[engine.Door]doorRunner{
		engine.DoorHook:        nil, // one runner per rewriting client: hookRunner
		engine.DoorExecSession: (*doorWalk).viaExecSession,
		engine.DoorToolRoute:   (*doorWalk).viaToolRoute,
		engine.DoorSessionTool: (*doorWalk).viaSessionTool,
		engine.DoorMCP:         (*doorWalk).viaMCP,
		engine.DoorInProcess:   (*doorWalk).viaInProcess,
	}
}

// hookFixtures are a shell tool call of each client whose hook rewrites
// (hooks' testdata): the command and cwd are replaced.
var hookFixtures = map[string]string{
	"claude":   "claude-code-2.1.328-pretooluse-bash.json",
	"codex":    "codex-pretooluse-bash-workspace.json",
	"gemini":   "gemini-cli-0.61.0-beforetool-run_shell_command.json",
	"pi":       "pi-tool_call-bash-downloads.json",
	"copilot":  "copilot-1.0.102-pretooluse-bash.json",
	"droid":    "droid-0.225.2-pretooluse-execute.json",
	"cline":    "cline-3.0.65-pretooluse-run_commands.json",
	"opencode": "opencode-1.18.33-bash-downloads.json",
}

// walkDoors is every door to walk, by name: each of engine.Doors, the hook
// door once per rewriting client. A door without a runner, or a
// rewriting client without a fixture, fails the test.
func walkDoors(t *testing.T) (names []string, run map[string]doorRunner) {
	t.Helper()
	runners, run := doorRunners(), map[string]doorRunner{}
	for _, d := range engine.Doors() {
		r, ok := runners[d]
		switch {
		case !ok:
			t.Errorf("door %q has no runner in the door walk: add one to doorRunners", d)
		case d == engine.DoorHook:
			for _, client := range hooks.Clients() {
				if !hooks.CanRewrite(client) {
					continue
				}
				if _, ok := hookFixtures[client]; !ok {
					t.Errorf("client %s rewrites shell commands but the door walk has no fixture for its hook", client)
					continue
				}
				name := string(d) + " (" + client + ")"
				names, run[name] = append(names, name), hookRunner(client)
			}
		default:
			names, run[string(d)] = append(names, string(d)), r
		}
	}
	return names, run
}

// TestDoorWalk: one table of escapes, each a real shell command run from
// a workspace script (which no static analysis can see into), through
// every door: all are refused. The real work passes through every door.
// The walk's home, so its workspace and Downloads, lies in /tmp, beneath
// the view's private /tmp, as a person's may: a rule of the private /tmp
// must not reach what is bound beneath it.
func TestDoorWalk(t *testing.T) {
	requireFullConfinement(t)
	need(t, "python3")
	walkDoorsOf(t, func(t *testing.T) *doorWalk { return newDoorWalkIn(t, "/tmp", sandbox.Probe()) }, nil)
}

// TestDoorWalkShm: the same table with the walk's home in /dev/shm,
// beneath the view's private /dev/shm, through pathgrant exec --session
// (every door prepares its sandbox with the one Launcher; TestDoorWalk
// walks each).
func TestDoorWalkShm(t *testing.T) {
	requireFullConfinement(t)
	need(t, "python3")
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		t.Skipf("/dev/shm is not a folder here: %v", err)
	}
	walkDoorsOf(t, func(t *testing.T) *doorWalk { return newDoorWalkIn(t, "/dev/shm", sandbox.Probe()) },
		[]string{string(engine.DoorExecSession)})
}

// walkDoorsOf runs every escape and every piece of real work through
// the doors named (nil: every door), each door in a walk of its own
// (newWalk: its own daemon, home and workspace) beside the others: a
// door's commands mostly wait on processes, and nothing one door's
// escapes leave behind can help or hide another's.
func walkDoorsOf(t *testing.T, newWalk func(t *testing.T) *doorWalk, only []string) {
	names, run := walkDoors(t)
	if only != nil {
		names = slices.DeleteFunc(names, func(n string) bool { return !slices.Contains(only, n) })
	}
	if len(names) == 0 {
		t.Fatalf("no door named %q", only)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newWalk(t)
			for _, esc := range w.escapes(t) {
				if esc.door != "" && string(esc.door) != name {
					continue
				}
				t.Run(esc.name, func(t *testing.T) {
					script, check := esc.setup(t)
					if script == "" {
						return
					}
					got := run[name](w, t, w.script(t, "echo "+started+"; "+script))
					if !strings.Contains(got.out, started) {
						t.Fatalf("the door did not run the script: %s", got.out)
					}
					if strings.Contains(got.out, escaped) {
						t.Errorf("escaped: %s\n%s", script, got.out)
					}
					if esc.said != "" && !strings.Contains(got.out, esc.said) {
						t.Errorf("not reported (%q): %s\n%s", esc.said, script, got.out)
					}
					if check != nil {
						check(t)
					}
				})
			}
			for _, job := range w.realWork(t) {
				t.Run("work: "+job.name, func(t *testing.T) {
					for _, tool := range job.tools {
						need(t, tool)
					}
					got := run[name](w, t, w.script(t, job.script+" && echo "+escaped))
					if !got.ran || !strings.Contains(got.out, escaped) {
						t.Errorf("real work refused: %s\n%s", job.script, got.out)
					}
				})
			}
		})
	}
}

// newDoorWalk sets the walk up.
func newDoorWalk(t *testing.T) *doorWalk {
	t.Helper()
	return newDoorWalkAt(t, sandbox.Probe())
}

// newDoorWalkAt is newDoorWalk with a daemon that confines at conf's
// level, its configuration changed by opts.
func newDoorWalkAt(t *testing.T, conf sandbox.Confinement, opts ...func(*ipc.Config)) *doorWalk {
	t.Helper()
	return newDoorWalkIn(t, "", conf, opts...)
}

// newDoorWalkIn is newDoorWalkAt with the walk's folders under base
// (newExecEnvIn).
func newDoorWalkIn(t *testing.T, base string, conf sandbox.Confinement, opts ...func(*ipc.Config)) *doorWalk {
	t.Helper()
	w := &doorWalk{execEnv: newExecEnvIn(t, base, conf, opts...), bin: buildBinary(t)}
	writeExecFile(t, w.home+"/.ssh/id_rsa", secretText+"\n")
	writeExecFile(t, w.home+"/.gitconfig", "[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n")
	if err := os.Remove(w.work + "/.claude/settings.json"); err != nil {
		t.Fatal(err)
	}
	git := exec.Command("git", "init", "-q", w.work)
	git.Env = append(os.Environ(), "HOME="+w.home)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	agent := exec.Command("sleep", "600")
	agent.Env = []string{"AGENT_API_KEY=" + secretText}
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	w.agent = agent.Process.Pid
	writeExecFile(t, w.home+"/other/.keep", "")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	other, err := apiclient.New(w.sock).Register(ctx, wire.SessionRequest{Agent: "other-agent", Cwd: w.home + "/other",
		Workspace: []string{w.home + "/other"}})
	if err != nil {
		t.Fatal(err)
	}
	w.other = other
	w.mcp = w.startMCP(t)
	return w
}

// script writes text to a new script in the workspace and returns the
// command that runs it.
func (w *doorWalk) script(t *testing.T, text string) string {
	t.Helper()
	w.mu.Lock()
	w.n++
	name := fmt.Sprintf("walk-%d.sh", w.n)
	w.mu.Unlock()
	writeExecFile(t, w.work+"/"+name, text+"\n")
	return "bash ./" + name
}

// pending raises a Downloads read request of session and returns its
// id.
func (w *doorWalk) pending(t *testing.T, session wire.SessionResponse, file string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := apiclient.ForSession(w.sock, session.ID, session.Token)
	defer c.CloseIdle()
	ans, err := c.Check(ctx, wire.CheckRequest{Op: guard.OpRead, Path: w.dl + "/" + file, Tool: "Read"})
	if err != nil || ans.Pending == "" {
		t.Fatalf("raise a request for %s: %+v, %v", file, ans, err)
	}
	return ans.Pending
}

// stillPending fails the test when request id was decided.
func (w *doorWalk) stillPending(t *testing.T, id string) {
	t.Helper()
	time.Sleep(300 * time.Millisecond) // a detached process had its chance
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	reqs, err := apiclient.New(w.sock).Pending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if r.ID == id {
			return
		}
	}
	t.Errorf("request %s is no longer pending", id)
}

// absent fails the test when path exists.
func absent(path string) func(t *testing.T) {
	return func(t *testing.T) {
		t.Helper()
		if _, err := os.Lstat(path); err == nil {
			t.Errorf("%s was created", path)
			os.RemoveAll(path)
		}
	}
}

// unchanged fails the test when path's content changed from now.
func unchanged(t *testing.T, path string) func(t *testing.T) {
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return func(t *testing.T) {
		t.Helper()
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Errorf("%s changed:\n%s", path, after)
			os.WriteFile(path, before, 0o644)
		}
	}
}

// pyHTTP is a python3 command sending one HTTP request over the Unix
// socket sock and printing the answer.
func pyHTTP(sock, method, path, body string) string {
	return fmt.Sprintf(`/usr/bin/python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(%q); b=%q; `+
		`s.sendall(("%s %s HTTP/1.0\r\nHost: pathgrant\r\nContent-Type: application/json\r\nContent-Length: %%d\r\n\r\n%%s" %% (len(b), b)).encode()); `+
		`a=s.recv(65536).decode(); print(a); sys.exit(0 if " 200 " in a.split("\r\n")[0] else 1)'`, sock, body, method, path)
}

// escape is one attempt to get out; setup returns its script (it prints
// escaped on success; "" skips) and a check of what must not have
// happened.
type escape struct {
	name  string
	setup func(t *testing.T) (string, func(t *testing.T))
	// said, when set, must be in the command's output (what afterrun
	// neutralised is never silent).
	said string
	// door, when set, is the one door it is walked through: an escape
	// at a property of the after-run check itself (the daemon's, the
	// same whichever door ran the command), too costly to repeat on
	// every door. Every door's own hand-over to the check is walked by
	// the cheap rows.
	door engine.Door
}

// protectedFiles are members of the protected set (guard/protected),
// absent in the walk's workspace, that a person's tools run without being
// asked: the view holds the place of some, and afterrun neutralises the
// others a command made, so after the command none is there.
var protectedFiles = []struct {
	path string
	// after: the view does not hold its place (a tool runs it only when
	// the person points one at the workspace); the command may write it,
	// and afterrun moves it aside and says so on the command's stderr.
	after bool
}{
	{".mcp.json", false}, {".claude/settings.json", false}, {".git/hooks/pre-commit", false},
	{".vscode/tasks.json", false}, {".idea/workspace.xml", false},
	{".git/commondir", true}, {".envrc", true}, {".bashrc", true}, {".gitmodules", true},
}

func (w *doorWalk) escapes(t *testing.T) []escape {
	ok := " && echo " + escaped
	es := []escape{
		{name: "connect to the daemon's socket", setup: func(t *testing.T) (string, func(t *testing.T)) {
			return pyConnect(t, w.sock) + ok, nil
		}},
		{name: "list every session's requests over the socket", setup: func(t *testing.T) (string, func(t *testing.T)) {
			return pyHTTP(w.sock, "GET", "/v1/requests", "") + ok, nil
		}},
		{name: "deny another session's request over the socket", setup: func(t *testing.T) (string, func(t *testing.T)) {
			id := w.pending(t, w.other, "report.csv")
			return pyHTTP(w.sock, "POST", "/v1/requests/"+id+"/decision", `{"scope":"deny"}`) + ok,
				func(t *testing.T) { w.stillPending(t, id) }
		}},
		{name: "read the agent's /proc/PID/environ", setup: func(t *testing.T) (string, func(t *testing.T)) {
			return fmt.Sprintf("grep -a %s /proc/%d/environ", secretText, w.agent) + ok, nil
		}},
		{name: "read the daemon's /proc/PID/environ", setup: func(t *testing.T) (string, func(t *testing.T)) {
			return fmt.Sprintf("grep -a PATH= /proc/%d/environ", os.Getpid()) + ok, nil
		}},
		{name: "signal the agent", setup: func(t *testing.T) (string, func(t *testing.T)) {
			return fmt.Sprintf("kill -0 %d", w.agent) + ok, nil
		}},
		{name: "signal the daemon", setup: func(t *testing.T) (string, func(t *testing.T)) {
			return fmt.Sprintf("kill -0 %d", os.Getpid()) + ok, nil
		}},
		{name: "read ~/.ssh/id_rsa", setup: func(t *testing.T) (string, func(t *testing.T)) {
			return "grep " + secretText + " " + w.home + "/.ssh/id_rsa" + ok, nil
		}},
		{name: "change what git reads (.git/config)", setup: func(t *testing.T) (string, func(t *testing.T)) {
			return "git config core.fsmonitor 'touch /tmp/pwned'" + ok, unchanged(t, w.work+"/.git/config")
		}},
		{name: "append to .git/config", setup: func(t *testing.T) (string, func(t *testing.T)) {
			return "printf '[core]\\n\\tpager = touch /tmp/pwned\\n' >> .git/config" + ok, unchanged(t, w.work+"/.git/config")
		}},
		{name: "D-Bus session bus by path", setup: func(t *testing.T) (string, func(t *testing.T)) {
			return dbusSend(t, startDBus(t, "unix:path="+w.root+"/run/bus-"+fmt.Sprint(time.Now().UnixNano()))) + ok, nil
		}},
		{name: "D-Bus session bus, abstract socket", setup: func(t *testing.T) (string, func(t *testing.T)) {
			return dbusSend(t, startDBus(t, fmt.Sprintf("unix:abstract=pathgrant-walk-%d", time.Now().UnixNano()))) + ok, nil
		}},
		{name: "X11 client", setup: func(t *testing.T) (string, func(t *testing.T)) {
			need(t, "xdotool")
			return "DISPLAY=" + w.display(t) + " xdotool getmouselocation" + ok, nil
		}},
		{name: "a detached process posts a decision with a valid code", setup: func(t *testing.T) (string, func(t *testing.T)) {
			id := w.pending(t, w.sess, "other.csv")
			code := w.person.Code(t, id)
			writeExecFile(t, w.work+"/code.txt", code)
			post := pyHTTP(w.sock, "POST", "/v1/requests/"+id+"/decision", `{"scope":"once","code":"`+code+`"}`)
			return "setsid -f sh -c " + shellWord(post+" > /dev/null 2>&1") + "; sleep 0.5", func(t *testing.T) { w.stillPending(t, id) }
		}},
		{name: "replace a symlinked .claude with a real one", setup: w.linkedAgentFolder},
		{name: "reopen an O_PATH descriptor of a Downloads file", setup: func(t *testing.T) (string, func(t *testing.T)) {
			file := w.dl + "/opath.csv"
			writeExecFile(t, file, "opath,"+secretText+"\n")
			py := fmt.Sprintf(`import os; fd=os.open(%q, os.O_PATH); print(open("/proc/self/fd/%%d" %% fd).read())`, file)
			// served by pathgrant's file system, the reopen is an open
			// like any other, asked: the person denies it
			return "/usr/bin/python3 -c " + shellWord(py) + " | grep " + secretText + ok, w.denyWhenAsked(t, file)
		}},
	}
	for _, p := range protectedFiles {
		f, path := p.path, w.work+"/"+p.path
		if p.after {
			es = append(es, escape{name: "create " + f + " (neutralised after)", said: path + ":", setup: func(t *testing.T) (string, func(t *testing.T)) {
				return "mkdir -p " + filepath.Dir(f) + " 2>/dev/null; echo '[core]' > " + f, absent(path)
			}}, escape{name: "link " + f + " (neutralised after)", said: path + ":", setup: func(t *testing.T) (string, func(t *testing.T)) {
				return "mkdir -p " + filepath.Dir(f) + " 2>/dev/null; echo '[core]' > planted-" + filepath.Base(f) +
					"; ln -s \"$PWD/planted-" + filepath.Base(f) + "\" " + f, absent(path)
			}})
			continue
		}
		es = append(es, escape{name: "create " + f, setup: func(t *testing.T) (string, func(t *testing.T)) {
			if _, err := os.Lstat(path); err == nil {
				t.Fatalf("%s exists before the walk", path)
			}
			return "mkdir -p " + filepath.Dir(f) + " 2>/dev/null; echo '{}' > " + f + ok, absent(path)
		}})
	}
	return slices.Concat(es, w.afterRunEscapes(), w.netEscapes(t))
}

// linkedAgentFolder makes the workspace's .claude a link to a folder
// outside it, as a dotfile manager does, and returns a script that
// replaces the link with a real folder holding settings that turn the
// hooks off. After it, the link must still be there, unchanged, and the
// workspace's .claude folder is put back for the other rows.
func (w *doorWalk) linkedAgentFolder(t *testing.T) (string, func(t *testing.T)) {
	link, target := w.work+"/.claude", w.home+"/dotfiles/claude"
	writeExecFile(t, target+"/settings.json", "{}\n")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	script := "{ rm .claude || mv .claude .claude-gone; } && mkdir .claude && " +
		`echo '{"disableAllHooks": true}' > .claude/settings.json` + " && echo " + escaped
	return script, func(t *testing.T) {
		t.Helper()
		if got, err := os.Readlink(link); err != nil || got != target {
			t.Errorf("the link %s was replaced (%q, %v)", link, got, err)
		}
		if data, _ := os.ReadFile(target + "/settings.json"); string(data) != "{}\n" {
			t.Errorf("the linked settings changed: %s", data)
		}
		os.RemoveAll(w.work + "/.claude-gone")
		if err := os.RemoveAll(link); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(link, 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

// display is the walk's X server, started once.
func (w *doorWalk) display(t *testing.T) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.x11 == "" {
		w.x11 = startXvfb(t)
	}
	return w.x11
}

// shellWord quotes s as one single-quoted shell word.
func shellWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// realWork is work every door must let through.
type realWork struct {
	name, script string
	tools        []string
}

func (w *doorWalk) realWork(t *testing.T) []realWork {
	var exports []string
	for _, kv := range seededGoEnv(t, w.execEnv) {
		k, v, _ := strings.Cut(kv, "=")
		exports = append(exports, "export "+k+"="+shellWord(v))
	}
	dir := func(name string) string {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.n++
		return fmt.Sprintf("%s-%d", name, w.n)
	}
	gomod := dir("gomod")
	repo := dir("repo")
	venv := dir("venv")
	return []realWork{
		{"go build with caches", strings.Join(exports, "; ") + "; mkdir -p " + gomod + " && cd " + gomod +
			" && printf 'module m\\ngo 1.21\\n' > go.mod && printf 'package main\\nfunc main() { println(\"built\") }\\n' > main.go" +
			" && go build -o m . && ./m", []string{"go"}},
		{"git init, commit and branch", "export HOME=" + shellWord(w.home) + "; mkdir " + repo + " && cd " + repo +
			" && git init -q && echo a > a && git add a && git commit -qm first && git branch topic && git checkout -q topic", []string{"git"}},
		{"python venv", "/usr/bin/python3 -m venv --without-pip " + venv + " && " + venv + "/bin/python -c 'print(1)'", []string{"python3"}},
		{"npm", "export PATH=/usr/local/bin:/usr/bin:/bin; npm --version", []string{"npm"}},
		ownLoopbackServer,
	}
}

// viaExecSession is `pathgrant exec --session`.
func (w *doorWalk) viaExecSession(t *testing.T, script string) walked {
	r := runCmd(t, w.execCmd(w.bin, "--", "bash", "-c", script))
	return walked{out: r.stdout + r.stderr, ran: r.code == 0}
}

// result is a tool call's answer as the walk reads it.
func toolWalked(res tools.Result, err error) walked {
	if err != nil {
		return walked{out: err.Error()}
	}
	out := res.Reason + "\n" + res.Error
	if res.Stdout != nil {
		out += "\n" + *res.Stdout
	}
	if res.Stderr != nil {
		out += "\n" + *res.Stderr
	}
	return walked{out: out, ran: res.ExitCode != nil && *res.ExitCode == 0}
}

func shellArgs(script string) json.RawMessage {
	data, _ := json.Marshal(map[string]any{"command": script, "timeout_ms": 120000})
	return data
}

// viaToolRoute is POST /v1/tools/execute_shell_command with the
// session's id and token.
func (w *doorWalk) viaToolRoute(t *testing.T, script string) walked {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := w.client()
	defer c.CloseIdle()
	return toolWalked(c.Tool(ctx, tools.ExecuteShellCommand, wire.ToolRequest{Args: shellArgs(script)}))
}

// viaSessionTool is POST /s/{session}/v1/tools/execute_shell_command.
func (w *doorWalk) viaSessionTool(t *testing.T, script string) walked {
	body, _ := json.Marshal(wire.ToolRequest{Args: shellArgs(script)})
	req, _ := http.NewRequest(http.MethodPost, "http://pathgrant/s/"+w.sess.ID+"/v1/tools/"+tools.ExecuteShellCommand, bytes.NewReader(body))
	req.Header.Set(wire.HeaderToken, w.sess.Token)
	hc := &http.Client{Timeout: 3 * time.Minute, Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", w.sock)
	}}}
	resp, err := hc.Do(req)
	if err != nil {
		return walked{out: err.Error()}
	}
	defer resp.Body.Close()
	var res tools.Result
	if resp.StatusCode != http.StatusOK {
		return walked{out: resp.Status}
	}
	return toolWalked(res, json.NewDecoder(resp.Body).Decode(&res))
}

// viaInProcess is the app's in-process API.
func (w *doorWalk) viaInProcess(t *testing.T, script string) walked {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return toolWalked(w.srv.Engine().RunTool(ctx, w.sess.ID, tools.ExecuteShellCommand, shellArgs(script)))
}

// viaMCP is `pathgrant mcp` driven over stdio by an MCP client: its
// execute_shell_command tool.
func (w *doorWalk) viaMCP(t *testing.T, script string) walked {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs := w.mcp
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tools.ExecuteShellCommand, Arguments: map[string]any{"command": script, "timeout_ms": 120000}})
	if err != nil {
		return walked{out: err.Error()}
	}
	var tr tools.Result
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &tr); err != nil || res.StructuredContent == nil {
		var text []string
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		return walked{out: strings.Join(text, "\n")}
	}
	return toolWalked(tr, nil)
}

// startMCP starts `pathgrant mcp` for the session, for the whole walk.
func (w *doorWalk) startMCP(t *testing.T) *sdk.ClientSession {
	cmd := exec.Command(w.bin, "mcp", "--socket", w.sock)
	cmd.Env, cmd.Dir = w.env(), w.work
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "door-walk", Version: "1"}, nil).Connect(context.Background(),
		&sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("pathgrant mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// hookRunner is client's hook (pathgrant-hook) asked about the shell
// command, then the command it rewrote run as the client runs it.
func hookRunner(client string) doorRunner {
	return func(w *doorWalk, t *testing.T, script string) walked {
		data, err := os.ReadFile(filepath.Join("..", "hooks", "testdata", hookFixtures[client]))
		if err != nil {
			t.Fatal(err)
		}
		var call map[string]any
		if err := json.Unmarshal(data, &call); err != nil {
			t.Fatal(err)
		}
		call["cwd"] = w.work
		if _, ok := call["worktree"]; ok { // OpenCode's project folder
			call["worktree"] = w.work
		}
		for _, k := range []string{"session_id", "sessionId"} { // Copilot's payloads are camelCase
			if _, ok := call[k]; ok {
				call[k] = "door-walk-" + client
			}
		}
		for _, k := range []string{"tool_input", "input", "toolArgs", "args"} { // OpenCode's plugin sends args
			if in, ok := call[k].(map[string]any); ok {
				in["command"] = script
			}
		}
		if tc, ok := call["tool_call"].(map[string]any); ok { // Cline's: the workspace is its cwd
			tc["input"] = map[string]any{"commands": []string{script}}
			call["workspaceRoots"], call["workspaceInfo"] = []string{w.work}, map[string]any{"rootPath": w.work}
		}
		data, _ = json.Marshal(call)
		hook := exec.Command(filepath.Join(filepath.Dir(w.bin), "pathgrant-hook"), client)
		hook.Stdin, hook.Dir = bytes.NewReader(data), w.work
		hook.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + w.home, appdirs.SocketEnv + "=" + w.sock}
		r := runCmd(t, hook)
		rewritten := findRewrite(r.stdout)
		if rewritten == "" {
			return walked{out: "the hook did not rewrite: " + r.stdout + r.stderr}
		}
		cmd := exec.Command("bash", "-c", rewritten)
		cmd.Dir, cmd.Env = w.work, []string{"PATH=/usr/bin:/bin", "HOME=" + w.home, "TMPDIR=" + w.tmp}
		run := runCmd(t, cmd)
		return walked{out: run.stdout + run.stderr, ran: run.code == 0}
	}
}

// findRewrite is the rewritten command in a hook's JSON answer: the one
// string that runs pathgrant-confine exec.
func findRewrite(answer string) string {
	var v any
	if json.Unmarshal([]byte(answer), &v) != nil {
		return ""
	}
	var find func(any) string
	find = func(v any) string {
		switch x := v.(type) {
		case string:
			if strings.Contains(x, " exec -- bash -c ") {
				return x
			}
		case map[string]any:
			for _, e := range x {
				if s := find(e); s != "" {
					return s
				}
			}
		case []any:
			for _, e := range x {
				if s := find(e); s != "" {
					return s
				}
			}
		}
		return ""
	}
	return find(v)
}

// TestToolDoorTimeout: a tool call that outlives its timeout is killed
// whole, what it detached (setsid -f) included: the sandbox's PID
// namespace ends with bubblewrap.
func TestToolDoorTimeout(t *testing.T) {
	requireFullConfinement(t)
	e := newExecEnv(t)
	marker := fmt.Sprint(3000 + os.Getpid()%1000)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	res, err := e.srv.Engine().RunTool(ctx, e.sess.ID, tools.ExecuteShellCommand, json.RawMessage(
		`{"command":"setsid -f sleep `+marker+`; sleep `+marker+`.5","timeout_ms":500}`))
	if err != nil || !res.TimedOut {
		t.Fatalf("RunTool = %+v, %v; want timed out", res, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the timeout took %v", d)
	}
	deadline := time.Now().Add(5 * time.Second)
	for left := sleepers(marker); len(left) > 0; left = sleepers(marker) {
		if time.Now().After(deadline) {
			t.Fatalf("processes of the timed-out command still run: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sleepers are the pids of `sleep MARKER…` processes.
func sleepers(marker string) []string {
	var out []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		cmdline, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if err == nil && strings.HasPrefix(string(cmdline), "sleep\x00"+marker) {
			out = append(out, d.Name())
		}
	}
	return out
}

// TestDoorWalkLandlockOnly: on a machine with Landlock and no
// bubblewrap, every door runs its command the same degraded way, says
// so the same way, and still keeps what the rules cover.
func TestDoorWalkLandlockOnly(t *testing.T) {
	requireFullConfinement(t)
	conf := sandbox.Probe()
	conf.Level, conf.Bwrap = sandbox.LevelLandlock, ""
	w := newDoorWalkAt(t, conf)
	names, run := walkDoors(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			got := run[name](w, t, w.script(t, "echo "+started+"; cat main.go; cat "+w.secret))
			if !strings.Contains(got.out, started) || !strings.Contains(got.out, "package main") {
				t.Fatalf("the door did not run the script in the workspace: %s", got.out)
			}
			if strings.Contains(got.out, secretText) || !strings.Contains(got.out, frontend.LandlockOnly) {
				t.Errorf("want the secret refused and the level said (%q):\n%s", frontend.LandlockOnly, got.out)
			}
		})
	}
}
