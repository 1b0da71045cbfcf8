// Package appdirs names pathgrant's environment variables and says where
// its files live by default: the socket, the store, the config folder and
// the person's own folders (Downloads, Documents, …: userfolders.go),
// following the XDG base directory spec on Linux and the Library folders
// on macOS (platform.go).
//
// Every function takes the environment as a lookup function (os.Getenv in
// production, a map in tests) so that the daemon, the CLI, the hook and
// the app agree on each path and tests can vary it without touching the
// process environment. It imports only the standard library: the hook
// binary links it.
package appdirs

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Getenv looks up one environment variable; "" means unset.
type Getenv func(string) string

// The environment variables pathgrant reads. SocketEnv and StoreEnv
// override the default paths (tests and scripts point every command at
// scratch ones); `pathgrant run` exports SessionEnv, TokenEnv and
// SocketEnv to the command it starts; WaitEnv tunes the hook.
const (
	SocketEnv  = "PATHGRANT_SOCKET"
	StoreEnv   = "PATHGRANT_STORE"
	SessionEnv = "PATHGRANT_SESSION"
	TokenEnv   = "PATHGRANT_TOKEN"
	WaitEnv    = "PATHGRANT_WAIT_MS"
)

// name is the folder and file stem pathgrant uses under each XDG folder.
const name = "pathgrant"

// Home is $HOME, which must be absolute: every default below it would
// otherwise depend on the working directory.
func Home(getenv Getenv) (string, error) {
	home := getenv("HOME")
	switch {
	case home == "":
		return "", errors.New("home folder: $HOME is not defined")
	case !filepath.IsAbs(home):
		return "", fmt.Errorf("home folder: $HOME %q is not absolute", home)
	}
	return home, nil
}

// xdgDir is the XDG variable env when it is absolute (the spec says a
// relative one is ignored), else def below home.
func xdgDir(getenv Getenv, env, home, def string) string {
	if dir := getenv(env); filepath.IsAbs(dir) {
		return filepath.Clean(dir)
	}
	return filepath.Join(home, def)
}

// ConfigHome is $XDG_CONFIG_HOME, else ~/.config.
func ConfigHome(getenv Getenv, home string) string {
	return xdgDir(getenv, "XDG_CONFIG_HOME", home, ".config")
}

// DataHome is $XDG_DATA_HOME, else ~/.local/share.
func DataHome(getenv Getenv, home string) string {
	return xdgDir(getenv, "XDG_DATA_HOME", home, ".local/share")
}

// StateHome is $XDG_STATE_HOME, else ~/.local/state.
func StateHome(getenv Getenv, home string) string {
	return xdgDir(getenv, "XDG_STATE_HOME", home, ".local/state")
}

// Socket is where the daemon listens: $PATHGRANT_SOCKET, else
// RuntimeDir/pathgrant.sock.
func Socket(getenv Getenv) string {
	if p := getenv(SocketEnv); p != "" {
		return p
	}
	return filepath.Join(RuntimeDir(getenv), name+".sock")
}

// SocketOr is the --socket flag's value when given, else Socket: the
// rule every command that talks to the daemon follows.
func SocketOr(flagValue string, getenv Getenv) string {
	if flagValue != "" {
		return flagValue
	}
	return Socket(getenv)
}

// DefaultStore is pathgrant.db in StateDir. State, not config or data:
// the store binds grants to this device and must never be synced to
// another.
func DefaultStore(getenv Getenv) (string, error) {
	home, err := Home(getenv)
	if err != nil {
		return "", fmt.Errorf("default store path: %w", err)
	}
	return filepath.Join(StateDir(getenv, home), name+".db"), nil
}

// Store picks the store path the way every command does: the --store flag
// value if set, else $PATHGRANT_STORE, else DefaultStore. The result is
// absolute so that error messages name the real file.
func Store(flagValue string, getenv Getenv) (string, error) {
	p := flagValue
	if p == "" {
		p = getenv(StoreEnv)
	}
	if p == "" {
		return DefaultStore(getenv)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("store path %s: %w", p, err)
	}
	return abs, nil
}
