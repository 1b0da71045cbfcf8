// Command pathgrant-confine runs agents' shell commands confined, in one
// small binary with two parts:
//
//   - `pathgrant-confine exec -- COMMAND...` is the front end a hook's
//     rewritten command runs (package launch): it presents the command's
//     exec capability to the daemon, which answers with the sandbox
//     prepared, and runs bubblewrap;
//   - `pathgrant-confine FD` is the inner step bubblewrap starts inside the
//     mount view: it reads the job (rules and command) from the memory
//     file at FD, restricts itself with Landlock and execs the command;
//   - `pathgrant-confine connect HOST PORT` is git's ssh's way out of the
//     command's network namespace: a tunnel through pathgrant's proxy
//     (launch.Connect).
//
// Both are on the path of every confined command, so it links only the
// front end, the rule types, go-landlock and x/sys (a test enforces it):
// it starts in a fraction of the time the full pathgrant binary takes.
package main

import (
	"fmt"
	"os"

	"pathgrant/sandbox/frontend"
	"pathgrant/sandbox/kernel"
	"pathgrant/sandbox/launch"
)

func main() {
	switch {
	case len(os.Args) >= 2 && os.Args[1] == "exec":
		os.Exit(frontend.Main(os.Args[2:], os.Getenv, os.Stderr))
	case len(os.Args) == 2:
		os.Exit(kernel.RunInner(os.Args[1], os.Environ(), os.Stderr))
	case len(os.Args) == 4 && os.Args[1] == "connect":
		os.Exit(launch.Connect(launch.ProxyPort, os.Args[2], os.Args[3], os.Stdin, os.Stdout, os.Stderr))
	}
	fmt.Fprintln(os.Stderr, frontend.Usage)
	fmt.Fprintln(os.Stderr, "       pathgrant-confine FD (the inner step, run by bubblewrap inside the sandbox)")
	fmt.Fprintln(os.Stderr, "       pathgrant-confine connect HOST PORT (git's ssh's tunnel through pathgrant's proxy, inside the sandbox)")
	os.Exit(kernel.ExitRefused)
}
