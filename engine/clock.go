package engine

import (
	"context"
	"fmt"
	"time"

	"pathgrant/hooks/clientconfig"
	"pathgrant/wire"
)

// One clock, the agent's: a client whose shell tool has a timeout of its
// own (Claude Code's Bash, Codex's timeout_ms) kills the command then,
// whatever pathgrant does. A request raised by a held open of that
// command must not promise the person longer than the command has, and
// when the command is gone the request has nothing left to answer: it
// ends, in words, rather than waiting out the hold's own bound.

// toolClock is what the exec capability of a rewritten command keeps of
// the check it was issued in: the agent's stated purpose, shown on the
// requests its held opens raise, and the client's own clock.
type toolClock struct {
	purpose string
	// until is when the client stops the command: the check's time plus
	// the tool's timeout, which is no later than the command's start plus
	// it (the command starts after the hook answered). Zero: no clock.
	until time.Time
	// words say who stops the command and when, for the person ("Claude
	// Code's Bash tool stops a command after 2 minutes").
	words string
}

// maxToolClock is the longest tool timeout taken as a clock. The value is
// the agent's to send: a longer one could only say more than the hold's
// own bound lets anything wait (and, in milliseconds near the int's
// limit, wrap into a past or negative time), so it counts as no clock.
const maxToolClock = 24 * time.Hour

// clockOf is the clock of a command checked with req at now.
func clockOf(req wire.CheckRequest, agent string, now time.Time) toolClock {
	c := toolClock{purpose: cleanInput(req.Purpose)}
	if req.ToolTimeoutMS <= 0 || req.ToolTimeoutMS > int(maxToolClock/time.Millisecond) {
		return c
	}
	d := time.Duration(req.ToolTimeoutMS) * time.Millisecond
	c.until = now.Add(d)
	c.words = fmt.Sprintf("%s's %s tool stops a command after %s", clientTitle(agent), toolName(req.Tool), durationWords(d))
	return c
}

// toolCallClock is the clock of one of pathgrant's own shell tool calls
// (execute_shell_command), whose context ends when its timeout kills the
// command: no clock when it has none.
func toolCallClock(ctx context.Context, now time.Time) toolClock {
	dl, ok := ctx.Deadline()
	if !ok {
		return toolClock{}
	}
	return toolClock{until: dl, words: "pathgrant's execute_shell_command stops a command after " + durationWords(dl.Sub(now).Round(time.Second))}
}

// wait bounds a held open's wait (at most bound) by the clock at now;
// byClock says the clock, not bound, set it.
func (c toolClock) wait(bound time.Duration, now time.Time) (wait time.Duration, byClock bool) {
	if c.until.IsZero() {
		return bound, false
	}
	left := max(c.until.Sub(now), 0)
	if left >= bound {
		return bound, false
	}
	return left, true
}

// ended says why a request that only this command raised ended undecided:
// the command is gone (interrupted, killed by its client), or its
// client's clock ran out while it waited.
func (c toolClock) ended(ranOut bool) string {
	what := "the command ended before a decision"
	if ranOut {
		what = "the command's time ran out before a decision"
	}
	if c.words == "" {
		return what
	}
	return what + " (" + c.words + ")"
}

// clientTitle is an agent client's name as its makers write it, or the
// name it registered with.
func clientTitle(agent string) string {
	if c, err := clientconfig.LookupClient(agent); err == nil {
		return c.Title
	}
	if agent == "" {
		return "the agent"
	}
	return shownName(agent)
}

// toolName is the tool a clock belongs to, as its client names it.
func toolName(tool string) string {
	if tool == "" {
		return "shell"
	}
	return shownName(tool)
}

// durationWords spells a tool's timeout as a person says it: "2
// minutes", "90 seconds", "1 hour".
func durationWords(d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return plural(int(d/time.Hour), "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return plural(int(d/time.Minute), "minute")
	case d >= time.Second:
		return plural(int(d.Round(time.Second)/time.Second), "second")
	}
	return plural(int(d/time.Millisecond), "millisecond")
}
