// Package confine starts the shell commands of package tools confined by
// Landlock to a session's effective permissions: the rules are the ones
// package sandbox builds for `pathgrant exec`, from the same policy, and
// a kernel without Landlock ABI 5 refuses to run anything.
//
// `pathgrant exec` restricts itself and then replaces its process with
// the command. A daemon cannot do that, so Start restricts one locked OS
// thread and starts the command from it: a child inherits the restriction
// (and no_new_privs) of the thread that forked it. The thread is never
// unlocked, so the Go runtime ends it when its goroutine returns and
// nothing else ever runs under the restriction, or outside it by mistake.
package confine

import (
	"os"
	"os/exec"
	"slices"
	"strings"

	"pathgrant/ipc"
	"pathgrant/sandbox"
	"pathgrant/sandbox/kernel"
	"pathgrant/tools"
)

// Landlock is a tools.Confiner. The zero value uses the real kernel and
// environment.
type Landlock struct {
	Probe  kernel.Probe            // kernel.ABI when nil
	Getenv func(key string) string // os.Getenv when nil; for the tmp dir base
}

var _ tools.Confiner = Landlock{}

// Start builds the session's rules now, then starts cmd under them with
// TMPDIR set to the session's private tmp dir. It fails closed: no
// Landlock, a rule the kernel refuses, or anything else wrong starts
// nothing.
func (l Landlock) Start(cmd *exec.Cmd, c tools.Confinement) error {
	probe, getenv := l.Probe, l.Getenv
	if probe == nil {
		probe = kernel.ABI
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if _, err := kernel.Available(probe); err != nil {
		return err
	}
	tmp, err := sandbox.SessionTmpDir(sandbox.TmpBase(getenv), c.Session)
	if err != nil {
		return err
	}
	rules, err := sandbox.Build(sandbox.Input{Policy: policyOf(c), TmpDir: tmp, System: sandbox.SystemRules()}, sandbox.OSFS{})
	if err != nil {
		return err
	}
	rs, err := kernel.NewRuleset(rules)
	if err != nil {
		return err
	}
	defer rs.Close()
	cmd.Env = append(slices.DeleteFunc(slices.Clone(cmd.Env), func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }),
		"TMPDIR="+tmp)
	return rs.StartRestricted(cmd.Start)
}

// policyOf is the confinement in the form sandbox.Build takes.
func policyOf(c tools.Confinement) ipc.Policy {
	p := c.Policy
	return ipc.Policy{Session: c.Session, Cwd: p.Cwd, Workspace: p.Workspace, ReadOnly: p.ReadOnly,
		BlockedWrite: p.BlockedWrite, Protected: p.Protected, Grants: c.Grants}
}
