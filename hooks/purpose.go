package hooks

import (
	"encoding/json"
	"strconv"
	"time"

	"pathgrant/wire"
)

// What a shell call is for, and how long its client lets it run. Several
// clients' shell tools carry the agent's own words for the call (Claude
// Code's Bash "description") and a timeout after which the client kills
// the command (Claude Code's Bash "timeout"): the person sees the one,
// and a request raised while the command runs waits no longer than the
// other (one clock, the agent's). Both are read from the clients' tool
// schemas as shipped (the versions scripts/agents pins); neither is
// checked, so a call without them, or with odd values, is judged alike.

// shellTerms is one client's shell tool: the key of its stated purpose,
// the key of its timeout and that timeout's unit, and its clock when the
// call names none.
type shellTerms struct {
	purpose string
	timeout string
	unit    time.Duration
	// clock is the client's timeout for a call with none of its own (or
	// the one given, bounded as the client bounds it); 0: no clock.
	clock func(given time.Duration, background bool, getenv func(string) string) time.Duration
	// background is the key that runs the command in the background.
	background string
}

// shellTermsOf are the clients whose shell tool says more than its
// command. Cursor's beforeShellExecution and Cline's run_commands carry
// the command alone.
var shellTermsOf = map[string]shellTerms{
	// Claude Code 2.1.328: Bash {command, timeout (ms, max 600000),
	// description, run_in_background}; BASH_DEFAULT_TIMEOUT_MS (default
	// 120000) and BASH_MAX_TIMEOUT_MS (default 600000, never below the
	// default) in its environment, which the hook inherits.
	"claude": {purpose: "description", timeout: "timeout", unit: time.Millisecond, background: "run_in_background", clock: claudeClock},
	// Codex 0.169: Bash {command, description}; its shell tool's
	// timeout_ms where the hook input carries it (no default known to
	// the hook: none assumed).
	"codex": {purpose: "description", timeout: "timeout_ms", unit: time.Millisecond, clock: givenClock},
	// Gemini CLI 0.61: run_shell_command {command, description,
	// is_background}; no per-call timeout.
	"gemini": {purpose: "description"},
	// Qwen Code 0.24.4: run_shell_command {command, description, timeout
	// (ms, max 600000), is_background}; 120000 ms by default.
	"qwen": {purpose: "description", timeout: "timeout", unit: time.Millisecond, background: "is_background", clock: qwenClock},
	// GitHub Copilot CLI 1.0.102: bash {command, description}.
	"copilot": {purpose: "description"},
	// Factory Droid 0.225.2: Execute {command, summary, riskLevel,
	// riskLevelReason}.
	"droid": {purpose: "summary"},
	// Pi 0.73.1: bash {command, timeout (seconds, no default)}.
	"pi": {timeout: "timeout", unit: time.Second, clock: givenClock},
	// OpenCode 1.18.33: bash {command, timeout (ms), workdir};
	// OPENCODE_EXPERIMENTAL_BASH_DEFAULT_TIMEOUT_MS, else 120000 ms, for a
	// call naming none.
	"opencode": {timeout: "timeout", unit: time.Millisecond, clock: opencodeClock},
}

// describeShell fills the call's stated purpose and its client's clock
// from a shell call's tool input; anything else is left as it is.
func describeShell(c *Call, getenv func(string) string) {
	terms, ok := shellTermsOf[c.Client]
	if !ok || !c.Shell || len(c.ToolInput) == 0 {
		return
	}
	var in map[string]json.RawMessage
	if json.Unmarshal(c.ToolInput, &in) != nil {
		return
	}
	if terms.purpose != "" {
		var s string
		if json.Unmarshal(in[terms.purpose], &s) == nil {
			c.Purpose = wire.Cut(s, wire.MaxInput)
		}
	}
	if terms.clock == nil {
		return
	}
	var given float64
	if terms.timeout != "" && json.Unmarshal(in[terms.timeout], &given) != nil {
		given = 0
	}
	var background bool
	if terms.background != "" && json.Unmarshal(in[terms.background], &background) != nil {
		background = false
	}
	d := time.Duration(0)
	if given > 0 && given < float64(24*time.Hour/terms.unit) {
		d = time.Duration(given) * terms.unit
	}
	c.ToolTimeout = terms.clock(d, background, getenv)
}

// Claude Code's Bash clock (its shipped code): a foreground command's
// timeout is the one given, else BASH_DEFAULT_TIMEOUT_MS, else 2
// minutes, at most BASH_MAX_TIMEOUT_MS, else 10 minutes (never below the
// default); a background command's, the one given (default 30 minutes,
// at most 2 hours).
const (
	claudeDefault           = 120000 * time.Millisecond
	claudeMax               = 600000 * time.Millisecond
	claudeBackgroundDefault = 1800000 * time.Millisecond
	claudeBackgroundMax     = 7200000 * time.Millisecond
)

func claudeClock(given time.Duration, background bool, getenv func(string) string) time.Duration {
	if background {
		return min(orDuration(given, claudeBackgroundDefault), claudeBackgroundMax)
	}
	def := orDuration(envMS(getenv, "BASH_DEFAULT_TIMEOUT_MS"), claudeDefault)
	most := max(orDuration(envMS(getenv, "BASH_MAX_TIMEOUT_MS"), claudeMax), def)
	return min(orDuration(given, def), most)
}

// qwenDefault is Qwen Code's foreground shell timeout; a background
// command has none.
const qwenDefault = 120000 * time.Millisecond

func qwenClock(given time.Duration, background bool, _ func(string) string) time.Duration {
	if background {
		return 0
	}
	return orDuration(given, qwenDefault)
}

// opencodeDefault is OpenCode's shell timeout for a call naming none.
const opencodeDefault = 120000 * time.Millisecond

func opencodeClock(given time.Duration, _ bool, getenv func(string) string) time.Duration {
	return orDuration(given, orDuration(envMS(getenv, "OPENCODE_EXPERIMENTAL_BASH_DEFAULT_TIMEOUT_MS"), opencodeDefault))
}

// givenClock is a client whose tool has no timeout unless the call
// names one.
func givenClock(given time.Duration, _ bool, _ func(string) string) time.Duration { return given }

func orDuration(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// envMS reads a positive number of milliseconds from the environment, 0
// when it holds none.
func envMS(getenv func(string) string, key string) time.Duration {
	n, err := strconv.ParseFloat(getenv(key), 64)
	if err != nil || n <= 0 || n > float64(24*time.Hour/time.Millisecond) {
		return 0
	}
	return time.Duration(n) * time.Millisecond
}
