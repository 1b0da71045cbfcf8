package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"pathgrant/ipc/ipctest"
	"pathgrant/wire"
)

// TestDocumentsClaudeCode: the person's own folders are eligible by
// default, not Downloads alone. Real Claude Code, offline, with its hook
// installed and the real daemon deciding under no device policy file: a
// Read of ~/Documents/spec.pdf becomes a request, approved with its code
// from outside the agent while the hook waits, and the file then reaches
// the model; a Read of ~/.ssh/id_rsa or of a file in ~/.config is refused
// at once, with no request, in words that say it can never be approved.
func TestDocumentsClaudeCode(t *testing.T) {
	if testing.Short() {
		t.Skip("real agent clients are not run in -short mode")
	}
	claude := agentsClient(t, "Claude Code", "@anthropic-ai/claude-code/bin/claude.exe")
	e := newAgentsEnv(t)
	spec := e.home + "/Documents/spec.pdf"
	pdf := onePagePDF(fmt.Sprintf("pathgrant-e2e-spec-%d", time.Now().UnixNano()))
	agentsWrite(t, spec, pdf)
	secret := fmt.Sprintf("pathgrant-e2e-secret-%d", time.Now().UnixNano())
	agentsWrite(t, e.home+"/.ssh/id_rsa", []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"+secret+"\n"))
	agentsWrite(t, e.home+"/.config/x", []byte(secret+"\n"))
	out := e.pathgrant("install-hooks", "claude", "--hook", e.hook, "--socket", e.sock)
	if !strings.Contains(out, "installed the pathgrant hook for claude") {
		t.Fatalf("install-hooks: %s", out)
	}

	api := &fakeAnthropic{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	env := e.baseEnv("ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-ant-e2e", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1")
	ask := func(prompt string) *agentsRun {
		return startAgent(t, e.work, env, claude, "-p", prompt, "--model", "claude-sonnet-4-5")
	}

	t.Run("a Documents read is a request, and approved it is read", func(t *testing.T) {
		api.script(anthropicReply{tool: "Read", input: map[string]any{"file_path": spec}}, anthropicReply{text: "The spec has one page."})
		run := ask("Summarise ~/Documents/spec.pdf")
		req := e.awaitPending(run, spec)
		if req.Agent != "claude" || req.Tool != "Read" || req.Op != wire.OpRead || req.State != wire.StatePending {
			t.Errorf("approval request %+v", req)
		}
		if _, err := e.client.Decide(context.Background(), req.ID, wire.Decision{Scope: "once", Code: ipctest.LogCode(t, e.log, req.ID, "")}); err != nil {
			t.Fatalf("approve from outside the agent: %v\n%s", err, e.log())
		}
		said := run.wait(t)
		content, isError, ok := api.toolResult(toolUseID(1))
		if !ok || isError || strings.Contains(content, "pathgrant") {
			t.Fatalf("tool result %q (error %v, sent %v); claude said:\n%s\ndaemon:\n%s", content, isError, ok, said, e.log())
		}
		if sent := api.requestsJSON(); !strings.Contains(sent, base64.StdEncoding.EncodeToString(pdf)) {
			t.Errorf("the model was not sent the PDF's bytes; tool result %q", content)
		}
		got, err := e.client.Request(context.Background(), req.ID)
		if err != nil || got.State != wire.StateApproved || got.Scope != "once" {
			t.Errorf("request after approval: %+v %v", got, err)
		}
	})

	for _, tc := range []struct{ name, path string }{
		{name: "an ssh key is never eligible", path: e.home + "/.ssh/id_rsa"},
		{name: "a file in ~/.config is never eligible", path: e.home + "/.config/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api.script(anthropicReply{tool: "Read", input: map[string]any{"file_path": tc.path}}, anthropicReply{text: "I could not read it."})
			run := ask("Read " + tc.path)
			said := run.wait(t)
			content, isError, ok := api.toolResult(toolUseID(1))
			want := "pathgrant: read " + tc.path + " is outside the workspace, in a folder of credentials, configuration or state " +
				"that pathgrant never offers for approval: it can never be approved; do not retry"
			if !ok || !isError || !strings.Contains(content, want) {
				t.Errorf("tool result %q (error %v, sent %v), want it to hold %q; claude said:\n%s", content, isError, ok, want, said)
			}
			if strings.Contains(api.requestsJSON(), secret) {
				t.Error("the refused file reached the model")
			}
			if reqs, _ := e.client.Pending(context.Background()); len(reqs) != 0 {
				t.Errorf("a never-eligible read was offered for approval: %+v", reqs)
			}
			t.Logf("Read result %q", content)
		})
	}
}

// onePagePDF is a minimal well-formed PDF of one page showing text, with
// a correct cross-reference table, so that a client that checks the file
// before sending it takes it as a PDF.
func onePagePDF(text string) []byte {
	stream := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return []byte(b.String())
}
