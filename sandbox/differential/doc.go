// Package differential checks the static guard against the kernel: shell
// commands generated from a grammar over the programs the guard models are
// judged by guard.Evaluate and, when it allows them, run for real under
// Landlock with the same policy (sandbox.Build, sandbox/kernel). A command
// the guard allows and the kernel refuses on a path is a soundness bug.
// The package holds only tests.
package differential
