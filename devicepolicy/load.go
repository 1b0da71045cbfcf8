package devicepolicy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"pathgrant/appdirs"
)

// File names in the config folder; TOML is the one to write by hand.
const (
	TOMLName = "policy.toml"
	JSONName = "policy.json"
)

// Dir is pathgrant's config folder, where the policy file is:
// $XDG_CONFIG_HOME/pathgrant (an absolute XDG_CONFIG_HOME only, as the
// spec says), else ~/.config/pathgrant.
func Dir(getenv func(string) string, home string) string {
	return appdirs.ConfigDir(getenv, home)
}

// Locate returns the home folder, the Downloads folder, the person's own
// folders and the folders never offered from the environment: $HOME must
// be absolute, Downloads is XDG_DOWNLOAD_DIR from the user-dirs.dirs file
// (appdirs.Downloads), else ~/Downloads, the user folders are
// appdirs.UserFolders.
func Locate(getenv func(string) string) (Env, error) {
	home := getenv("HOME")
	if !filepath.IsAbs(home) {
		return Env{}, fmt.Errorf("device policy: $HOME %q is not an absolute path", home)
	}
	home = filepath.Clean(home)
	return Env{Home: home, Downloads: appdirs.Downloads(getenv, home), UserFolders: appdirs.UserFolders(getenv, home),
		Own: own(getenv, home)}, nil
}

// own are pathgrant's config and state folders and the XDG configuration,
// data and state homes as the environment places them: never eligible.
// One that is or holds the home folder (a misconfigured variable) is left
// out rather than making every folder ineligible; the home folder's own
// .config, .local/share and .local/state are never eligible anyway.
func own(getenv func(string) string, home string) []string {
	var out []string
	for _, d := range []string{appdirs.ConfigDir(getenv, home), appdirs.StateDir(getenv, home),
		appdirs.ConfigHome(getenv, home), appdirs.DataHome(getenv, home), appdirs.StateHome(getenv, home)} {
		if d = filepath.Clean(d); !within(d, home) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// Read is the policy in force for the environment getenv describes: the
// file in Dir, read once, with the defaults Locate roots. What reads the
// file once (the hook, the CLI) uses it; a running daemon keeps it
// current with package devicepolicy/watch.
func Read(getenv func(string) string) (Policy, error) {
	env, err := Locate(getenv)
	if err != nil {
		return Policy{}, err
	}
	return Load(Dir(getenv, env.Home), env)
}

// Load reads the policy file in dir: policy.toml, else policy.json, else
// none (the defaults). A field the file leaves out keeps its default; a
// list the file gives replaces the default list. Both files present, an
// unknown field, a value of the wrong type, a relative path or a
// forbidden folder is an error naming the file and, where known, the
// line.
func Load(dir string, env Env) (Policy, error) {
	tomlPath, jsonPath := filepath.Join(dir, TOMLName), filepath.Join(dir, JSONName)
	tomlData, tomlErr := os.ReadFile(tomlPath)
	jsonData, jsonErr := os.ReadFile(jsonPath)
	for _, err := range []error{tomlErr, jsonErr} {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Policy{}, fmt.Errorf("device policy: %w", err)
		}
	}
	switch {
	case tomlErr == nil && jsonErr == nil:
		return Policy{}, fmt.Errorf("device policy: both %s and %s exist in %s: keep one", TOMLName, JSONName, dir)
	case tomlErr == nil:
		return Parse(tomlPath, tomlData, env)
	case jsonErr == nil:
		return Parse(jsonPath, jsonData, env)
	}
	return Defaults(env), nil
}

// Parse reads a policy from data, TOML or JSON by the name's extension;
// name is used in errors.
func Parse(name string, data []byte, env Env) (Policy, error) {
	p := Defaults(env)
	p.EligibleReadOnly, p.UserFolders = nil, nil // given or not: eligible settles both
	var err error
	if filepath.Ext(name) == ".json" {
		err = decodeJSON(data, &p)
	} else {
		err = decodeTOML(data, &p)
	}
	if err != nil {
		return Policy{}, fmt.Errorf("device policy %s: %s", name, oneLine(err.Error()))
	}
	at := func(value string) string {
		n := lineOf(data, value)
		if rest, ok := strings.CutPrefix(value, env.Home); ok && n == 0 {
			n = lineOf(data, "~"+rest) // the file may say ~/x for home/x
		}
		if n > 0 {
			return fmt.Sprintf("line %d: ", n)
		}
		return ""
	}
	if err := p.resolve(env.Home, at); err != nil {
		return Policy{}, fmt.Errorf("device policy %s: %w", name, err)
	}
	listed := p.EligibleReadOnly != nil
	if err := p.check(env.Home, at); err != nil {
		return Policy{}, fmt.Errorf("device policy %s: %w", name, err)
	}
	if err := p.eligible(env, listed, at); err != nil {
		return Policy{}, fmt.Errorf("device policy %s: %w", name, err)
	}
	p.Network.normalize()
	return p, nil
}

func decodeTOML(data []byte, p *Policy) error {
	md, err := toml.Decode(string(data), p)
	if err != nil {
		return err
	}
	if keys := md.Undecoded(); len(keys) > 0 {
		key := keys[0].String()
		if n := lineOf(data, keys[0][len(keys[0])-1]); n > 0 {
			return fmt.Errorf("line %d: unknown field %q", n, key)
		}
		return fmt.Errorf("unknown field %q", key)
	}
	return nil
}

func decodeJSON(data []byte, p *Policy) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("line %d: %w", lineAt(data, se.Offset), err)
		case errors.As(err, &te):
			return fmt.Errorf("line %d: %w", lineAt(data, te.Offset), err)
		}
		if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if n := lineOf(data, strings.Trim(field, `"`)); n > 0 {
				return fmt.Errorf("line %d: unknown field %s", n, field)
			}
		}
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// lineOf is the first line (from 1) holding s, or 0.
func lineOf(data []byte, s string) int {
	if s == "" {
		return 0
	}
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 0
	}
	return lineAt(data, int64(i))
}

// lineAt is the line (from 1) of byte offset off.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// oneLine joins a multi-line message (TOML parse errors quote the input).
func oneLine(s string) string {
	lines := slices.DeleteFunc(strings.Split(s, "\n"), func(l string) bool { return strings.TrimSpace(l) == "" })
	return strings.Join(lines, "; ")
}
