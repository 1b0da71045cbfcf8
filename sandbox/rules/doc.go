// Package rules is the vocabulary a confined command's Landlock rules are
// written in: Access (Landlock's own right bits) and Rule. It is a leaf,
// importing only the standard library, so that the inner step that
// enforces the rules (sandbox/kernel, cmd/pathgrant-confine) links none of
// the policy, shell or daemon code that builds them. Package sandbox
// re-exports both names.
package rules
