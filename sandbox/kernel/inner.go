package kernel

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"syscall"
)

// Exit statuses of the inner step when it does not run the command; they
// are `pathgrant exec`'s own.
const (
	ExitRefused  = 126 // the job could not be read or the ruleset not built or enforced
	ExitNotFound = 127 // the command is not in the view
)

// RunInner is exec's inner step, which bubblewrap starts inside the mount
// view (`pathgrant-confine FD`, or `pathgrant exec --inner FD`): it reads
// the job at the descriptor fdArg, restricts itself with its rules and
// execs its command with environ. It returns only when the command was not
// run, with the status to exit with; nothing runs unrestricted.
func RunInner(fdArg string, environ []string, stderr io.Writer) int {
	fd, err := strconv.Atoi(fdArg)
	if err != nil {
		fmt.Fprintf(stderr, "pathgrant exec: inner step: bad descriptor %q\n", fdArg)
		return ExitRefused
	}
	job, err := ReadJob(fd)
	if err != nil {
		fmt.Fprintf(stderr, "pathgrant exec: %v\n", err)
		return ExitRefused
	}
	if len(job.Argv) == 0 {
		fmt.Fprintln(stderr, "pathgrant exec: sandbox job: no command")
		return ExitRefused
	}
	if job.Net != 0 {
		if err := HandOutListener(job.Net, job.NetPort); err != nil {
			fmt.Fprintf(stderr, "pathgrant exec: no way out of this command's network namespace (%v): it reaches its own loopback only\n", err)
		}
	}
	rs, err := NewRuleset(job.Rules)
	if err != nil {
		fmt.Fprintf(stderr, "pathgrant exec: %v: not running %s\n", err, job.Argv[0])
		return ExitRefused
	}
	rs.Isolate = job.Isolate
	err = rs.Exec(job.Path, job.Argv, environ, job.Hold, func(err error) {
		fmt.Fprintf(stderr, "pathgrant exec: opens are not held for approval (%v): a read that needs the person fails at once\n", err)
	})
	if errors.Is(err, syscall.ENOENT) {
		fmt.Fprintf(stderr, "pathgrant exec: %s is not in the sandbox's view (put it in a toolchain root of the device policy)\n", job.Path)
		return ExitNotFound
	}
	fmt.Fprintf(stderr, "pathgrant exec: %v\n", err)
	return ExitRefused
}
