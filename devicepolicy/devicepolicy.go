// Package devicepolicy reads the device policy file, the user's own word
// on what every session on this machine may reach beyond its workspace:
// $XDG_CONFIG_HOME/pathgrant/policy.toml (or policy.json). It says which
// roots are eligible for read-only approval, which toolchains and caches
// confined commands may use, whether commands are confined at all, how
// long the audit log is kept, and what confined commands may reach over
// the network.
//
// The file can widen what a session reaches, so some places are never
// accepted in it, whatever it says: the folders that hold credentials
// (~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh), browser profiles and password
// stores (Forbidden). A file naming one of them, an unknown field or a bad
// value is refused as a whole, with the line at fault.
//
// This package is the file's one parser and check: the hook reads it with
// Read at each call it needs it for, the daemon keeps it current with
// package devicepolicy/watch and reads every setting where it is used.
package devicepolicy

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"pathgrant/guard/protected"
)

// The values of unknown_tools (another server's MCP tool) and
// unmapped_tools (a client's own tool pathgrant cannot map to the files it
// touches): what a hook does with a tool call whose file accesses it
// cannot know.
const (
	AskClient = "ask-client" // let the agent's own permission prompt decide
	DenyTool  = "deny"       // refuse it
)

// DefaultRetentionDays is how long audit records and ended sessions are
// kept when the file does not say.
const DefaultRetentionDays = 90

// Policy is the device policy. Paths are absolute and clean once loaded.
type Policy struct {
	// EligibleReadOnly are the roots under which a denied read may be
	// approved (read-only) by the person: once loaded, the file's list
	// and the person's own folders as UserFolders says (eligible.go).
	EligibleReadOnly []string `toml:"eligible_read_only" json:"eligible_read_only"`
	// UserFolders makes the person's own folders (Desktop, Documents,
	// Downloads, … appdirs.UserFolders) eligible. Left out, it is true
	// unless the file lists eligible_read_only, which is then the whole
	// list as it was before this setting: an older file means what it
	// meant. Set once loaded.
	UserFolders *bool `toml:"user_folders" json:"user_folders"`
	// NeverEligible are the folders under which nothing is ever offered
	// for approval (NeverEligible), whatever the roots say: not a setting,
	// filled when loaded for the guard.
	NeverEligible []string `toml:"-" json:"-"`
	// Toolchains are read and executed by confined commands: compilers
	// and interpreters installed under the home folder or /usr/local.
	Toolchains []string `toml:"toolchains" json:"toolchains"`
	// Caches are read and written by confined commands: build and
	// package caches a build cannot run without.
	Caches []string `toml:"caches" json:"caches"`
	// ReadOnlyFiles are read (files or trees) by confined commands:
	// configuration tools need, such as ~/.gitconfig.
	ReadOnlyFiles []string `toml:"read_only_files" json:"read_only_files"`
	// UnknownTools is AskClient or DenyTool: other MCP servers' tools.
	UnknownTools string `toml:"unknown_tools" json:"unknown_tools"`
	// UnmappedTools is DenyTool or AskClient: a client's own tools that
	// pathgrant cannot map to files (a new tool of a client, a custom Pi
	// tool). Denied by default: such a tool may read or write anything,
	// and asking the client lets whatever the client's own rules allow.
	UnmappedTools string `toml:"unmapped_tools" json:"unmapped_tools"`
	// Confinement says whether `pathgrant exec` confines commands; false
	// runs them unconfined (the guard's verdict is then all there is).
	Confinement bool `toml:"confinement" json:"confinement"`
	// SSHAgent lets confined commands reach the ssh agent socket.
	SSHAgent bool `toml:"ssh_agent" json:"ssh_agent"`
	// HoldOpens has a confined command that opens a file under an
	// eligible root wait for the person's decision and then read it (no
	// retry); false fails such an open at once, as without the kernel's
	// support. The eligible roots' names and metadata are then visible
	// in the view, never their contents.
	HoldOpens bool `toml:"hold_opens" json:"hold_opens"`
	// RetentionDays is how long audit records are kept.
	RetentionDays int `toml:"retention_days" json:"retention_days"`
	// AllowProtected opens members of the protected set (package
	// guard/protected, by key: ".vscode", ".git/config") for writing in
	// every workspace, for a person who wants sessions to edit them.
	// None by default. The agents' hook settings are never opened.
	AllowProtected []string `toml:"allow_protected" json:"allow_protected"`
	// Network is what confined commands may reach over the network.
	Network Network `toml:"network" json:"network"`
}

// Env is where the defaults are rooted: the home folder, the user's
// Downloads folder, the person's own folders (appdirs.UserFolders) and
// pathgrant's own and the XDG configuration and state folders (Own,
// never eligible). Locate finds them from the environment.
type Env struct {
	Home        string
	Downloads   string
	UserFolders []string
	Own         []string
}

// Defaults is the policy with no file: the person's own folders eligible
// (those not in a folder never offered), the common
// toolchains and caches under the home folder, git's configuration
// readable, other MCP servers' tools left to the client, unmapped tools
// denied, confinement on, no ssh agent, 90 days of audit, public
// network destinations reached (private ones asked).
func Defaults(env Env) Policy {
	h := func(rel string) string { return filepath.Join(env.Home, rel) }
	never := NeverEligible(env)
	return Policy{
		EligibleReadOnly: defaultEligible(env, never),
		UserFolders:      boolPtr(true),
		NeverEligible:    never,
		Toolchains: []string{h(".local/bin"), h("go"), h(".cargo"), h(".rustup"), h(".nvm"), h(".pyenv"),
			h(".local/share/mise"), "/usr/local", "/opt"},
		Caches:        []string{h(".cache"), h("go/pkg/mod"), h(".npm"), h(".cargo/registry"), h(".m2")},
		ReadOnlyFiles: []string{h(".gitconfig"), h(".config/git")},
		UnknownTools:  AskClient,
		UnmappedTools: DenyTool,
		Confinement:   true,
		HoldOpens:     true,
		RetentionDays: DefaultRetentionDays,
		Network:       Network{Mode: NetAllowPublic},
	}
}

// forbiddenRel are the folders under the home folder that hold
// credentials, browser profiles or passwords. No root in the policy may
// be one of them, lie inside one, or hold one.
var forbiddenRel = []string{
	".ssh", ".aws", ".gnupg", ".config/gh", ".azure", ".kube", ".docker", ".netrc",
	".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
	".config/microsoft-edge", ".config/vivaldi", ".var/app",
	".password-store", ".local/share/keyrings", ".config/1Password", ".config/Bitwarden",
	".config/KeePassXC", ".local/share/kwalletd",
}

// forbiddenDarwinRel are macOS's own places for the same: the keychains,
// cookies, and the browsers' and password managers' profiles under
// ~/Library. Listed only on macOS, so a Linux session's bounds and view
// stay as they were.
var forbiddenDarwinRel = []string{
	"Library/Keychains", "Library/Cookies", "Library/Safari",
	"Library/Application Support/Google/Chrome", "Library/Application Support/Chromium",
	"Library/Application Support/Firefox", "Library/Application Support/BraveSoftware",
	"Library/Application Support/Microsoft Edge", "Library/Application Support/Vivaldi",
	"Library/Application Support/1Password", "Library/Group Containers/2BUA8C4S2C.com.1password",
	"Library/Application Support/Bitwarden", "Library/Application Support/KeePassXC",
}

// Forbidden returns the credential, browser and password folders under
// home. Confinement also hides them from commands whose workspace would
// otherwise show them.
func Forbidden(home string) []string { return forbiddenOn(runtime.GOOS, home) }

// forbiddenOn is Forbidden for the system goos, so a test on one system
// checks the other's list.
func forbiddenOn(goos, home string) []string {
	rel := forbiddenRel
	if goos == "darwin" {
		rel = slices.Concat(forbiddenRel, forbiddenDarwinRel)
	}
	out := make([]string, len(rel))
	for i, r := range rel {
		out[i] = filepath.Join(home, r)
	}
	return out
}

// check refuses a policy that names a forbidden folder or a bad value. at
// says where a value sits in the file, for the error.
func (p Policy) check(home string, at func(value string) string) error {
	fields := []struct {
		name  string
		paths []string
	}{
		{"eligible_read_only", p.EligibleReadOnly}, {"toolchains", p.Toolchains},
		{"caches", p.Caches}, {"read_only_files", p.ReadOnlyFiles},
	}
	forbidden := Forbidden(home) // once: the hook checks the file at every MCP call
	for _, f := range fields {
		for _, path := range f.paths {
			if bad := forbiddenOverlap(path, forbidden); bad != "" {
				return fmt.Errorf("%s%s: %s is never allowed: it holds or lies in %s (credentials, browser profiles or passwords)",
					at(path), f.name, path, bad)
			}
		}
	}
	for _, k := range p.AllowProtected {
		if _, ok := protected.Named(k); !ok {
			return fmt.Errorf("%sallow_protected: %q is not a protected member (see guard/protected: .vscode, .git/config, …)", at(k), k)
		}
	}
	for _, f := range []struct{ name, value string }{{"unknown_tools", p.UnknownTools}, {"unmapped_tools", p.UnmappedTools}} {
		if f.value != AskClient && f.value != DenyTool {
			return fmt.Errorf("%s%s: %q is neither %q nor %q", at(f.name), f.name, f.value, AskClient, DenyTool)
		}
	}
	if p.RetentionDays < 1 {
		return fmt.Errorf("%sretention_days: %d, want 1 or more", at(fmt.Sprint(p.RetentionDays)), p.RetentionDays)
	}
	return p.Network.check(at)
}

// forbiddenOverlap returns the folder of forbidden path is, lies in or
// holds, or "".
func forbiddenOverlap(path string, forbidden []string) string {
	for _, f := range forbidden {
		if within(f, path) || within(path, f) {
			return f
		}
	}
	return ""
}

// within reports whether p is root or lies below it.
func within(root, p string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}

// resolve turns each path into a clean absolute one: "~" and "~/x" are
// below home, and a relative path is refused.
func (p *Policy) resolve(home string, at func(string) string) error {
	for _, f := range []*[]string{&p.EligibleReadOnly, &p.Toolchains, &p.Caches, &p.ReadOnlyFiles} {
		for i, path := range *f {
			switch {
			case path == "~":
				path = home
			case strings.HasPrefix(path, "~/"):
				path = filepath.Join(home, path[2:])
			case !filepath.IsAbs(path):
				return fmt.Errorf("%s%q is not an absolute path (nor ~/…)", at(path), path)
			}
			(*f)[i] = filepath.Clean(path)
		}
		*f = slices.Compact(*f)
	}
	return nil
}
