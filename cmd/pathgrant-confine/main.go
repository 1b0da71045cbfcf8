// Command pathgrant-confine is `pathgrant exec`'s inner step on its own:
// bubblewrap starts `pathgrant-confine FD` inside the mount view, and it
// reads the job (rules and command) from the memory file at FD, restricts
// itself with Landlock and execs the command. It links only the rule
// types, go-landlock and x/sys (a test enforces it), so it starts in a
// fraction of the time the full pathgrant binary takes. exec uses it when
// it sits next to the pathgrant binary, else `pathgrant exec --inner FD`.
package main

import (
	"fmt"
	"os"

	"pathgrant/sandbox/kernel"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: pathgrant-confine FD (run by pathgrant exec inside its sandbox)")
		os.Exit(kernel.ExitRefused)
	}
	os.Exit(kernel.RunInner(os.Args[1], os.Environ(), os.Stderr))
}
