// Command nohook is the baseline every hook measurement is paired with:
// a bare Go binary that does what any hook must (read the client's JSON
// on stdin, answer on stdout) and nothing else. Run as `nohook CLIENT`,
// like pathgrant-hook, it answers what that client takes as "no
// objection": {"block":false} for Pi and OpenCode (whose plugin stops
// any call an answer does not let through), {} for every other client.
package main

import (
	"io"
	"os"
)

func main() {
	_, _ = io.Copy(io.Discard, os.Stdin)
	answer := "{}\n"
	if len(os.Args) > 1 && (os.Args[1] == "pi" || os.Args[1] == "opencode") {
		answer = `{"block":false}` + "\n"
	}
	_, _ = os.Stdout.WriteString(answer)
}
