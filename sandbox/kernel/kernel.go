// Package kernel enforces sandbox rules with Landlock: it opens each rule's
// path (binding the rule to that inode, so a link or file swapped in
// afterwards cannot widen it), builds the ruleset, restricts the calling
// thread and replaces the process with the command, which inherits the
// restriction and can never drop it.
package kernel

import (
	"errors"
	"fmt"

	"pathgrant/sandbox/rules"
)

// MinABI is the oldest Landlock ABI the rules can be enforced with: 5
// (Linux 6.10) is the first to handle every right rules.Handled names
// (refer since 2, truncate since 3, ioctl on devices since 5). There is no
// best-effort mode: an older kernel counts as no Landlock.
const MinABI = 5

// ScopeABI is the first Landlock ABI with IPC scopes (signals, abstract
// Unix sockets); sandbox.ScopeLandlockABI says the same to the policy side.
const ScopeABI = 6

// ErrUnavailable is wrapped by every error saying Landlock cannot enforce
// the rules on this kernel.
var ErrUnavailable = errors.New("landlock is unavailable")

// Probe reports the kernel's Landlock ABI version. ABI is the real one;
// tests pass their own.
type Probe func() (int, error)

// Available returns the kernel's ABI version, or an error wrapping
// ErrUnavailable when Landlock is missing, disabled or older than MinABI.
func Available(probe Probe) (int, error) {
	v, err := probe()
	switch {
	case err != nil:
		return 0, fmt.Errorf("%w: %v", ErrUnavailable, err)
	case v < MinABI:
		return v, fmt.Errorf("%w: the kernel offers Landlock ABI %d, exec needs %d or later", ErrUnavailable, v, MinABI)
	}
	return v, nil
}

// Skipped is a rule that was not added, and why. Dropping a rule only
// takes rights away.
type Skipped struct {
	Rule rules.Rule
	Err  error
}
