package hooks_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"pathgrant/wire"
)

// The words each client's model reads, in the client's own hook output,
// for each thing that can happen to a read of ~/Downloads/report.csv:
// what happened, what the person must do and where, and whether to
// retry. A client whose allow carries no reason shows nothing from
// pathgrant at all ("").
const (
	wApproved   = "pathgrant: approved by the person in pathgrant's window"
	wNotAllowed = "pathgrant: read $HOME/.ssh/id_ed25519 is outside the workspace and not in a folder pathgrant offers for approval; " +
		"the person can allow it in pathgrant's settings (Audit → Allow…) or add its folder to eligible_read_only in policy.toml; " +
		"do not retry until they say they have"
	wDenied  = "pathgrant: denied by the person in pathgrant's window: do not retry it unless they ask you to"
	wSession = "pathgrant: denied by the person for this session: do not retry; it stays denied until the session ends"
	wDevice  = "pathgrant: denied by the person on this device: do not retry; it stays denied until the person lifts it in pathgrant's settings"
	wPaused  = "pathgrant: reading ~/Downloads/report.csv needs the person's approval, but they paused pathgrant's approval prompts, " +
		"so nobody was asked: denied; tell the person (they resume prompts from pathgrant's tray menu) and retry once they have"
)

// Situations of the wording table.
const (
	sAllowed     = "allowed"              // the person allows it once while the hook waits
	sNotEligible = "denied, not eligible" // a read of ~/.ssh: nothing a person could approve
	sPending     = "eligible, pending"    // PATHGRANT_WAIT_MS=0: asked, not waited for
	sDenied      = "denied by the person" // once, while the hook waits
	sSession     = "remembered denial"    // denied for this session while the hook waits
	sDevice      = "device denial"        // denied on this device while the hook waits
	sPaused      = "prompts paused"       // the person paused prompts: nobody is asked
	sTimeout     = "timeout"              // PATHGRANT_WAIT_MS=300: nobody decides in time
)

// wordingInput is each client's hook input for the read (a recorded
// fixture).
var wordingInput = map[string]string{
	"claude":   "claude-code-2.1.328-pretooluse-read.json",
	"codex":    "codex-pretooluse-bash-downloads.json",
	"gemini":   "gemini-cli-0.61.0-beforetool-read_file.json",
	"cursor":   "cursor-beforereadfile-downloads.json",
	"pi":       "pi-tool_call-read-downloads.json",
	"copilot":  "copilot-1.0.102-pretooluse-view.json",
	"droid":    "droid-0.225.2-pretooluse-read.json",
	"cline":    "cline-3.0.65-pretooluse-read_files.json",
	"qwen":     "qwen-code-0.24.4-pretooluse-read_file.json",
	"opencode": "opencode-1.18.33-read-downloads.json",
}

var wordingCases = []struct {
	client, situation, stdout string
}{
	{"claude", sAllowed, claudeAllow(wApproved)},
	{"claude", sNotEligible, claudeDeny(wNotAllowed)},
	{"claude", sPending, claudeDeny(pendingRead)},
	{"claude", sDenied, claudeDeny(wDenied)},
	{"claude", sSession, claudeDeny(wSession)},
	{"claude", sDevice, claudeDeny(wDevice)},
	{"claude", sPaused, claudeDeny(wPaused)},
	{"claude", sTimeout, claudeDeny(timedOut)},

	{"codex", sAllowed, ""},
	{"codex", sNotEligible, claudeDeny(wNotAllowed)},
	{"codex", sPending, claudeDeny(pendingRead)},
	{"codex", sDenied, claudeDeny(wDenied)},
	{"codex", sSession, claudeDeny(wSession)},
	{"codex", sDevice, claudeDeny(wDevice)},
	{"codex", sPaused, claudeDeny(wPaused)},
	{"codex", sTimeout, claudeDeny(timedOut)},

	{"gemini", sAllowed, `{"decision":"allow"}`},
	{"gemini", sNotEligible, geminiDeny(wNotAllowed)},
	{"gemini", sPending, geminiDeny(pendingRead)},
	{"gemini", sDenied, geminiDeny(wDenied)},
	{"gemini", sSession, geminiDeny(wSession)},
	{"gemini", sDevice, geminiDeny(wDevice)},
	{"gemini", sPaused, geminiDeny(wPaused)},
	{"gemini", sTimeout, geminiDeny(timedOut)},

	{"cursor", sAllowed, `{"permission":"allow"}`},
	{"cursor", sNotEligible, cursorDeny(wNotAllowed)},
	{"cursor", sPending, cursorDeny(pendingRead)},
	{"cursor", sDenied, cursorDeny(wDenied)},
	{"cursor", sSession, cursorDeny(wSession)},
	{"cursor", sDevice, cursorDeny(wDevice)},
	{"cursor", sPaused, cursorDeny(wPaused)},
	{"cursor", sTimeout, cursorDeny(timedOut)},

	{"pi", sAllowed, `{"block":false}`},
	{"pi", sNotEligible, piBlock(wNotAllowed)},
	{"pi", sPending, piBlock(pendingRead)},
	{"pi", sDenied, piBlock(wDenied)},
	{"pi", sSession, piBlock(wSession)},
	{"pi", sDevice, piBlock(wDevice)},
	{"pi", sPaused, piBlock(wPaused)},
	{"pi", sTimeout, piBlock(timedOut)},

	{"copilot", sAllowed, `{"permissionDecision":"allow","permissionDecisionReason":"` + wApproved + `"}`},
	{"copilot", sNotEligible, copilotDeny(wNotAllowed)},
	{"copilot", sPending, copilotDeny(pendingRead)},
	{"copilot", sDenied, copilotDeny(wDenied)},
	{"copilot", sSession, copilotDeny(wSession)},
	{"copilot", sDevice, copilotDeny(wDevice)},
	{"copilot", sPaused, copilotDeny(wPaused)},
	{"copilot", sTimeout, copilotDeny(timedOut)},

	{"droid", sAllowed, claudeAllow(wApproved)},
	{"droid", sNotEligible, claudeDeny(wNotAllowed)},
	{"droid", sPending, claudeDeny(pendingRead)},
	{"droid", sDenied, claudeDeny(wDenied)},
	{"droid", sSession, claudeDeny(wSession)},
	{"droid", sDevice, claudeDeny(wDevice)},
	{"droid", sPaused, claudeDeny(wPaused)},
	{"droid", sTimeout, claudeDeny(timedOut)},

	{"cline", sAllowed, `{}`},
	{"cline", sNotEligible, clineDeny(wNotAllowed)},
	{"cline", sPending, clineDeny(pendingRead)},
	{"cline", sDenied, clineDeny(wDenied)},
	{"cline", sSession, clineDeny(wSession)},
	{"cline", sDevice, clineDeny(wDevice)},
	{"cline", sPaused, clineDeny(wPaused)},
	{"cline", sTimeout, clineDeny(timedOut)},

	{"qwen", sAllowed, `{}`},
	{"qwen", sNotEligible, qwenDeny(wNotAllowed)},
	{"qwen", sPending, qwenDeny(pendingRead)},
	{"qwen", sDenied, qwenDeny(wDenied)},
	{"qwen", sSession, qwenDeny(wSession)},
	{"qwen", sDevice, qwenDeny(wDevice)},
	{"qwen", sPaused, qwenDeny(wPaused)},
	{"qwen", sTimeout, qwenDeny(timedOut)},

	{"opencode", sAllowed, `{"block":false}`},
	{"opencode", sNotEligible, piBlock(wNotAllowed)},
	{"opencode", sPending, piBlock(pendingRead)},
	{"opencode", sDenied, piBlock(wDenied)},
	{"opencode", sSession, piBlock(wSession)},
	{"opencode", sDevice, piBlock(wDevice)},
	{"opencode", sPaused, piBlock(wPaused)},
	{"opencode", sTimeout, piBlock(timedOut)},
}

// TestWording runs the real hook binary for each client and situation
// against a real daemon, the person's decision made while it waits, and
// holds the exact output the client hands its model.
func TestWording(t *testing.T) {
	decisions := map[string]wire.Decision{
		sAllowed: {Scope: "once"},
		sDenied:  {Scope: "deny"},
		sSession: {Scope: "deny", Remember: true},
		sDevice:  {Scope: "deny", Remember: true, Device: true},
	}
	for _, tc := range wordingCases {
		t.Run(tc.client+"/"+tc.situation, func(t *testing.T) {
			t.Parallel()
			d := newDaemon(t)
			data, err := os.ReadFile("testdata/" + wordingInput[tc.client])
			if err != nil {
				t.Fatal(err)
			}
			input := string(data)
			if tc.situation == sNotEligible {
				input = strings.ReplaceAll(input, "Downloads/report.csv", ".ssh/id_ed25519")
			}
			input = d.expand(input)
			env := []string{"PATHGRANT_SOCKET=" + d.sock, "HOME=" + d.home, "XDG_CONFIG_HOME="}
			var got hookRun
			switch dec, decided := decisions[tc.situation]; {
			case decided:
				done := make(chan hookRun, 1)
				go func() { done <- runHook(t, tc.client, input, append(env, "PATHGRANT_WAIT_MS=20000")...) }()
				req := d.waitPending(1)[0]
				if _, err := d.srv.Engine().Decide(req.ID, dec); err != nil {
					t.Fatalf("decide %+v: %v", dec, err)
				}
				select {
				case got = <-done:
				case <-time.After(30 * time.Second):
					t.Fatal("the hook did not answer after the decision")
				}
			case tc.situation == sPending:
				got = runHook(t, tc.client, input, append(env, "PATHGRANT_WAIT_MS=0")...)
			case tc.situation == sTimeout:
				got = runHook(t, tc.client, input, append(env, "PATHGRANT_WAIT_MS=300")...)
			case tc.situation == sPaused:
				d.srv.Engine().SetPaused(true)
				got = runHook(t, tc.client, input, env...)
			default:
				got = runHook(t, tc.client, input, env...)
			}
			want := strings.ReplaceAll(tc.stdout, "$HOME", d.home)
			if want != "" {
				want += "\n"
			}
			if got.stdout != want || got.exit != 0 {
				t.Errorf("the model reads\n%s\nwant\n%s\n(exit %d, stderr %q)", got.stdout, want, got.exit, got.stderr)
			}
		})
	}
}
