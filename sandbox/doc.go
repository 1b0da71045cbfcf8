// Package sandbox turns a session's effective permissions (wire.Policy) into
// kernel file-system rules for `pathgrant exec`: the workspace read-write
// except its blocked-write and protected paths, read-only roots and read
// grants read-only, a few system locations, and nothing else.
//
// This package is pure: Build computes the rules from a policy and a view
// of the file system, and links no kernel code. Package sandbox/kernel
// opens each rule's path, builds the Landlock ruleset and enforces it. The
// hook adapters rewrite shell commands to run under exec with
// hooks.ExecWrap. On macOS the same view becomes a Seatbelt profile
// (package sandbox/seatbelt) that sandbox-exec runs the command under.
package sandbox
