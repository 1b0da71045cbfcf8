//go:build !linux

package kernel

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"pathgrant/sandbox/rules"
)

// ABI reports that Landlock exists only on Linux.
func ABI() (int, error) {
	return 0, fmt.Errorf("no Landlock on %s", runtime.GOOS)
}

// Ruleset is never built off Linux.
type Ruleset struct {
	Isolate bool
	Applied []rules.Rule
	Skipped []Skipped
}

// NewRuleset fails: there is no Landlock off Linux.
func NewRuleset([]rules.Rule) (*Ruleset, error) {
	return nil, fmt.Errorf("%w: no Landlock on %s", ErrUnavailable, runtime.GOOS)
}

// Close does nothing.
func (*Ruleset) Close() error { return nil }

// Exec fails: there is no Landlock off Linux.
func (*Ruleset) Exec(string, []string, []string, int, func(error)) error {
	return fmt.Errorf("%w: no Landlock on %s", ErrUnavailable, runtime.GOOS)
}

// JobFile fails off Linux.
func JobFile([]byte) (*os.File, error) {
	return nil, fmt.Errorf("%w: no Landlock on %s", ErrUnavailable, runtime.GOOS)
}

// ReadJob fails off Linux.
func ReadJob(int) (rules.Job, error) {
	return rules.Job{}, fmt.Errorf("%w: no Landlock on %s", ErrUnavailable, runtime.GOOS)
}

// HandOutListener is Linux's: no network namespace is made elsewhere.
func HandOutListener(int, int) error { return errors.New("no network namespace on this system") }
