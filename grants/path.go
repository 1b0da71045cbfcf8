package grants

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// EnvStore names the environment variable that overrides the store path, so
// tests and scripts can point every command at a scratch store.
const EnvStore = "PATHGRANT_STORE"

// DefaultPath returns $XDG_STATE_HOME/pathgrant/pathgrant.db, falling back
// to ~/.local/state when XDG_STATE_HOME is unset or not absolute (as the XDG
// spec requires). State, not config or data: it must never be synced.
func DefaultPath() (string, error) {
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("default store path: %w", err)
		}
		if !filepath.IsAbs(home) {
			return "", errors.New("default store path: home directory is not absolute")
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "pathgrant", "pathgrant.db"), nil
}

// ResolvePath picks the store path the way every command does: the --store
// flag value if set, else $PATHGRANT_STORE, else DefaultPath. The result is
// absolute so that error messages name the real file.
func ResolvePath(flagValue string) (string, error) {
	p := flagValue
	if p == "" {
		p = os.Getenv(EnvStore)
	}
	if p == "" {
		return DefaultPath()
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("store path %s: %w", p, err)
	}
	return abs, nil
}
