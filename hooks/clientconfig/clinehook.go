package clientconfig

import (
	"encoding/json"
	"strings"
)

// ClineHookMarker is the second line of the hook script install-hooks
// writes for Cline (after its #! line); install-hooks recognises its own
// file by it.
const ClineHookMarker = "#!/bin/sh\n# pathgrant: Cline hook"

// clineHookArgvPrefix starts the line of the script that records the hook
// command as a JSON array, for `pathgrant doctor`.
const clineHookArgvPrefix = "# hook: "

// clineHookScript is Cline's PreToolUse hook: Cline runs the call when a
// hook fails, times out or prints nothing, so the script prints the
// hook's answer only when it exited 0 with one, and a block otherwise.
const clineHookScript = ClineHookMarker + `
#
# Sends each of Cline's tool calls to pathgrant-hook and prints its
# answer. Written by ` + "`pathgrant install-hooks cline`" + `; remove it with
# ` + "`pathgrant install-hooks cline --uninstall`" + `. Anything but the hook's
# own answer (a missing binary, a crash, no output) stops the run.
__ARGV__
out=$(__COMMAND__) && [ -n "$out" ] ||
  out='{"cancel":true,"errorMessage":"pathgrant: the hook did not answer: denied","contextModification":"pathgrant: the hook did not answer: denied"}'
printf '%s\n' "$out"
`

// ClineHookFor is the hook script that runs the hook command argv.
func ClineHookFor(argv []string) string {
	data, err := json.Marshal(argv)
	if err != nil { // a []string always marshals
		panic(err)
	}
	return strings.NewReplacer("__ARGV__", clineHookArgvPrefix+string(data), "__COMMAND__", CommandLine(argv)).Replace(clineHookScript)
}

// ClineHookArgv reads the hook command back from the script, nil when
// the script holds none.
func ClineHookArgv(script string) []string {
	for line := range strings.Lines(script) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), clineHookArgvPrefix); ok {
			var argv []string
			if json.Unmarshal([]byte(rest), &argv) == nil && len(argv) > 0 {
				return argv
			}
		}
	}
	return nil
}
