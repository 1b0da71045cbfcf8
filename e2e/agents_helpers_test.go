package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/wire"
)

// agentsDir is where scripts/agents installs the real agent clients.
func agentsDir() string {
	if d := os.Getenv("PATHGRANT_AGENTS_DIR"); d != "" {
		return d
	}
	root, _ := filepath.Abs("..")
	return filepath.Join(root, ".cache", "agents")
}

// agentsClient returns an installed client's entry point, or skips the test
// saying why it is not there.
func agentsClient(t *testing.T, name, rel string) string {
	t.Helper()
	p := filepath.Join(agentsDir(), "node_modules", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed in %s: scripts/agents installs it from npm (it reported why if npm could not): %v",
			name, agentsDir(), err)
	}
	return p
}

// agentsEnv is one end-to-end run: a user's home with a workspace and a
// Downloads file, the real pathgrant, pathgrant-hook and pathgrant-confine
// binaries, and the real daemon on its own socket and store.
type agentsEnv struct {
	t                      *testing.T
	root, home, work, dl   string
	bin, hook, sock, store string
	report                 []byte // the file the agent is asked to read
	client                 *apiclient.Client
	daemonLog              string
}

func newAgentsEnv(t *testing.T) *agentsEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &agentsEnv{t: t, root: root, home: root + "/home", bin: root + "/bin/pathgrant", hook: root + "/bin/pathgrant-hook",
		sock: root + "/run/pathgrant.sock", store: root + "/state/pathgrant.db", daemonLog: root + "/daemon.log"}
	e.work, e.dl = e.home+"/work", e.home+"/Downloads"
	e.report = []byte(fmt.Sprintf("id,value\n1,42\n2,pathgrant-e2e-%d\n", time.Now().UnixNano()))
	agentsWrite(t, e.dl+"/report.csv", e.report)
	agentsWrite(t, e.work+"/README.md", []byte("a project\n"))
	agentsBuild(t, e.bin, "pathgrant", true)
	agentsBuild(t, e.hook, "pathgrant/cmd/pathgrant-hook", false)
	agentsBuild(t, root+"/bin/pathgrant-confine", "pathgrant/cmd/pathgrant-confine", false)
	e.startDaemon()
	e.client = apiclient.New(e.sock)
	return e
}

func agentsWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func agentsBuild(t *testing.T, out, pkg string, cgo bool) {
	t.Helper()
	gotool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gotool); err != nil {
		gotool = "go"
	}
	cmd := exec.Command(gotool, "build", "-o", out, pkg)
	cmd.Env = os.Environ()
	if !cgo {
		cmd.Env = append(cmd.Env, "CGO_ENABLED=0")
	}
	if data, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, data)
	}
}

// baseEnv is a clean environment for the daemon and the agents: the
// temporary home, the test daemon's socket (as a user with a daemon on a
// socket of their own sets PATHGRANT_SOCKET, so that `pathgrant-confine`
// running a confined command finds it too), and nothing of the
// developer's own pathgrant session.
func (e *agentsEnv) baseEnv(extra ...string) []string {
	env := []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=dumb", "USER=" + os.Getenv("USER"),
		"TMPDIR=" + os.TempDir(), "PATHGRANT_SOCKET=" + e.sock}
	return append(env, extra...)
}

// startDaemon runs `pathgrant serve --headless` and waits until it answers.
func (e *agentsEnv) startDaemon() {
	t := e.t
	logf, err := os.Create(e.daemonLog)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(e.bin, "serve", "--headless", "--socket", e.sock, "--store", e.store)
	cmd.Env = e.baseEnv()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); logf.Close() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("daemon: %v\n%s", err, e.log())
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("the daemon did not stop on SIGTERM\n%s", e.log())
		}
	})
	awaitHealthy(t, e.sock, exited, e.log)
}

// awaitHealthy waits until the daemon on sock answers its health route,
// failing tb with its log when it exits first or stays silent 30 s.
func awaitHealthy(tb testing.TB, sock string, exited <-chan error, log func() string) {
	tb.Helper()
	c := apiclient.New(sock)
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Health(ctx)
		cancel()
		if err == nil {
			return
		}
		select {
		case err := <-exited:
			tb.Fatalf("the daemon exited: %v\n%s", err, log())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the daemon never answered: %v\n%s", err, log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (e *agentsEnv) log() string {
	data, _ := os.ReadFile(e.daemonLog)
	return string(data)
}

// pathgrant runs the CLI with the test's home and returns its output.
func (e *agentsEnv) pathgrant(args ...string) string {
	e.t.Helper()
	return e.pathgrantIn("", args...)
}

// pathgrantIn is pathgrant with stdin on the command's standard input.
func (e *agentsEnv) pathgrantIn(stdin string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Env = e.baseEnv()
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("pathgrant %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// agentsRun is an agent process started by a test.
type agentsRun struct {
	cmd    *exec.Cmd
	out    *agentsBuffer
	done   chan struct{}
	err    error
	cancel context.CancelFunc
}

// startAgent runs the agent directly (not through a shell): its first
// non-shell ancestor as the daemon sees it from a hook is then the agent
// itself, and this test process, its parent, stays outside the agent's
// lineage and may approve as the user.
func startAgent(t *testing.T, dir string, env []string, argv ...string) *agentsRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	r := &agentsRun{cmd: cmd, out: &agentsBuffer{}, done: make(chan struct{}), cancel: cancel}
	cmd.Stdout, cmd.Stderr = r.out, r.out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start %s: %v", argv[0], err)
	}
	go func() {
		r.err = cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // anything the agent left behind
	})
	return r
}

// wait waits for the agent to exit and fails the test unless it exited 0.
func (r *agentsRun) wait(t *testing.T) string {
	t.Helper()
	<-r.done
	if r.err != nil {
		t.Fatalf("%s: %v\n%s", r.cmd.Path, r.err, r.out.String())
	}
	return r.out.String()
}

type agentsBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *agentsBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *agentsBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// awaitPending polls the daemon, from this process, until an approval
// request for path is pending, while the agent runs.
func (e *agentsEnv) awaitPending(r *agentsRun, path string) wire.Request {
	e.t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		reqs, err := e.client.Pending(context.Background())
		if err != nil {
			e.t.Fatalf("pending: %v", err)
		}
		for _, req := range reqs {
			if req.Path == path {
				return req
			}
		}
		select {
		case <-r.done:
			e.t.Fatalf("the agent exited before asking for %s: %v\n%s\ndaemon:\n%s", path, r.err, r.out.String(), e.log())
		case <-time.After(50 * time.Millisecond):
		}
	}
	e.t.Fatalf("no approval request for %s\n%s", path, e.log())
	return wire.Request{}
}

// fakeAnthropic is a local stand-in for the Anthropic Messages API: each
// conversation turn of the agent gets the next scripted reply, streamed as
// server-sent events the way the API streams them.
type fakeAnthropic struct {
	mu        sync.Mutex
	replies   []anthropicReply
	requests  []map[string]any  // the agent's conversation requests, in order
	sent      map[int]time.Time // tool-use turn → when its stream ended
	latencies []time.Duration   // tool use sent → request carrying its result
}

// anthropicReply is one assistant turn: a tool call, or text that ends it.
type anthropicReply struct {
	tool  string
	input map[string]any
	text  string
}

func (f *fakeAnthropic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages") || strings.Contains(r.URL.Path, "count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"not here"}}`)
		return
	}
	var req map[string]any
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	reply, turn := anthropicReply{text: "ok"}, 0
	if tools, _ := req["tools"].([]any); len(tools) > 0 { // the agent's own conversation, not a side request
		f.mu.Lock()
		f.requests = append(f.requests, req)
		if at, ok := f.sent[len(f.requests)-1]; ok {
			f.latencies = append(f.latencies, time.Since(at))
			delete(f.sent, len(f.requests)-1)
		}
		if turn = len(f.requests); turn <= len(f.replies) {
			reply = f.replies[turn-1]
		} else {
			reply = anthropicReply{text: "done"}
		}
		f.mu.Unlock()
	}
	model, _ := req["model"].(string)
	if stream, _ := req["stream"].(bool); !stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "msg_side", "type": "message", "role": "assistant", "model": model,
			"content": []any{map[string]any{"type": "text", "text": reply.text}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 2}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	bw := bufio.NewWriter(w)
	event := func(name string, data map[string]any) {
		payload, _ := json.Marshal(data)
		fmt.Fprintf(bw, "event: %s\ndata: %s\n\n", name, payload)
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": fmt.Sprintf("msg_%d", time.Now().UnixNano()),
		"type": "message", "role": "assistant", "model": model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
	stop := "end_turn"
	if reply.tool != "" {
		stop = "tool_use"
		input, _ := json.Marshal(reply.input)
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": toolUseID(turn), "name": reply.tool, "input": map[string]any{}}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": reply.text}})
	}
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 12}})
	event("message_stop", map[string]any{"type": "message_stop"})
	bw.Flush()
	if reply.tool != "" {
		f.mu.Lock()
		f.sent[turn] = time.Now()
		f.mu.Unlock()
	}
}

// toolLatencies returns, for each tool use of the conversation, the time
// from the end of its stream to the request carrying its result.
func (f *fakeAnthropic) toolLatencies() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.latencies...)
}

// requestsJSON is every conversation request of the last conversation.
func (f *fakeAnthropic) requestsJSON() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	data, _ := json.Marshal(f.requests)
	return string(data)
}

// script sets the replies to the next conversation and forgets the last.
func (f *fakeAnthropic) script(replies ...anthropicReply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests, f.replies, f.sent, f.latencies = nil, replies, map[int]time.Time{}, nil
}

func toolUseID(n int) string { return fmt.Sprintf("toolu_e2e_%02d", n) }

// toolResult returns the tool_result the agent sent back for tool use id.
func (f *fakeAnthropic) toolResult(id string) (content string, isError bool, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, req := range f.requests {
		msgs, _ := req["messages"].([]any)
		for _, m := range msgs {
			blocks, _ := m.(map[string]any)["content"].([]any)
			for _, b := range blocks {
				bm, _ := b.(map[string]any)
				if bm["type"] != "tool_result" || bm["tool_use_id"] != id {
					continue
				}
				isError, _ = bm["is_error"].(bool)
				switch c := bm["content"].(type) {
				case string:
					return c, isError, true
				case []any:
					var sb strings.Builder
					for _, part := range c {
						if s, ok := part.(map[string]any)["text"].(string); ok {
							sb.WriteString(s)
						}
					}
					return sb.String(), isError, true
				}
			}
		}
	}
	return "", false, false
}
