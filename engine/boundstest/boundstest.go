// Package boundstest is the one table of session roots that every route
// registering a session over the socket must refuse or allow alike
// (POST /v1/sessions, a hook-only session's first check, `pathgrant run`):
// each class of place no session may be registered over, each reached
// through a link, each "contains" case, and the look-alikes that stay
// allowed. Tests of package ipc and of the CLI run it through their routes.
package boundstest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pathgrant/appdirs"
	"pathgrant/devicepolicy"
	"pathgrant/hooks/clientconfig"
)

// Layout is a scratch machine: a home folder with a workspace inside a
// root that also holds the daemon's state (Root/state) and socket folder
// (Root/run), and an environment that moves the agents' configuration
// homes, puts the XDG runtime folder in a scratch "/run/user/UID"
// (RunUser) and names a socket in a scratch "/tmp/pathgrant-UID" below
// TmpLike.
type Layout struct {
	Root, Home, Work string
	RunUser, TmpLike string
	Env              map[string]string
}

// NewLayout lays out a scratch machine under fresh temporary folders.
func NewLayout(t testing.TB, root string) Layout {
	t.Helper()
	scratch := func() string {
		d, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	l := Layout{Root: root, Home: root + "/home", Work: root + "/home/work", RunUser: scratch(), TmpLike: scratch()}
	l.Env = map[string]string{
		"HOME":                l.Home,
		"XDG_RUNTIME_DIR":     l.RunUser,
		appdirs.SocketEnv:     l.Socket(),
		"CLAUDE_CONFIG_DIR":   l.Home + "/moved/claude",
		"CODEX_HOME":          l.Home + "/moved/codex",
		"GEMINI_CLI_HOME":     l.Home + "/moved/gemini-home",
		"PI_CODING_AGENT_DIR": l.Home + "/moved/pi",
	}
	return l
}

// Getenv is the layout's environment.
func (l Layout) Getenv(k string) string { return l.Env[k] }

// Socket is the socket the layout's environment names.
func (l Layout) Socket() string { return l.TmpLike + "/pathgrant-1000/pathgrant.sock" }

// Case is one root a session names: refused with a message naming the
// canonical root and containing Want, or allowed when Want is "".
// WorkspaceOnly: refused as a workspace, allowed as a read-only root.
type Case struct {
	Name, Root, Want string
	WorkspaceOnly    bool
}

// Cases returns the table for l, with every folder it names created and
// the links made.
func Cases(t testing.TB, l Layout) []Case {
	t.Helper()
	home, work, root := l.Home, l.Work, l.Root
	cases := []Case{
		{"the root folder", "/", "is the root folder", false},
		{"the home folder", home, "is the home folder", false},
		{"the home folder with a trailing slash", home + "/", "is the home folder", false},
		{"a folder holding the home folder", root, "contains the home folder", false},
		{"~/.config holds ~/.config/gh", home + "/.config", "contains the credential folder " + home + "/.config/gh", false},
		{"~/.local holds pathgrant's state folder", home + "/.local", "contains", false},
		{"pathgrant's store folder", root + "/state", "is pathgrant's state folder", false},
		{"inside pathgrant's store folder", root + "/state/sub", "lies inside pathgrant's state folder", false},
		{"pathgrant's default state folder", home + "/.local/state/pathgrant", "is pathgrant's state folder", false},
		{"pathgrant's config folder", home + "/.config/pathgrant", "is pathgrant's config folder", false},
		{"the XDG runtime folder holding the socket", l.RunUser, "is pathgrant's runtime folder", false},
		{"inside the XDG runtime folder", l.RunUser + "/app", "lies inside pathgrant's runtime folder", false},
		{"the socket's folder", filepath.Dir(l.Socket()), "is pathgrant's runtime folder", false},
		{"a temp folder holding the socket's folder", l.TmpLike, "contains pathgrant's runtime folder", false},
		{"the temp folder, holding the socket's folder (and here the home folder)", filepath.Dir(l.TmpLike), "contains", false},
		{"a protected path (the daemon's socket folder)", root + "/run", "is a protected path", false},
		{"claude's MCP file", home + "/.claude.json", "is an agent's configuration", false},
		{"the systemd user units", home + "/.config/systemd/user", "lies inside the session's start-up folder", false},
		{"the autostart entries", home + "/.config/autostart", "is a folder your desktop session starts programs from", false},
		{"the session's environment", home + "/.config/environment.d", "is a folder your desktop session starts programs from", false},
		{"the desktop entries", home + "/.local/share/applications", "is a folder your desktop session starts programs from", false},
		{"allowed: ~/.config-notes/autostart", home + "/.config-notes/autostart", "", false},
		{"a project's .git", work + "/.git", "lies inside a project's .git", true},
		{"inside a project's .git", work + "/.git/hooks", "lies inside a project's .git", true},
		{"a project's .claude", work + "/.claude", "lies inside a project's .claude", true},
		{"a project's .CLAUDE, in another case", work + "/.CLAUDE", "lies inside a project's .CLAUDE", true},
		{"a project's .cursor", work + "/sub/.cursor", "lies inside a project's .cursor", true},
		{"a project's .opencode", work + "/.opencode/plugins", "lies inside a project's .opencode", true},

		{"allowed: ~/src/ssh-tools", home + "/src/ssh-tools", "", false},
		{"allowed: ~/.sshfoo", home + "/.sshfoo", "", false},
		{"allowed: ~/.claude-notes", home + "/.claude-notes", "", false},
		{"allowed: ~/projects/.claude-notes", home + "/projects/.claude-notes", "", false},
		{"allowed: ~/work/config", work + "/config", "", false},
		{"allowed: ~/.configs", home + "/.configs", "", false},
		{"allowed: a project beside the socket's folder", l.TmpLike + "/project", "", false},
		{"allowed: ~/.local/state-old", home + "/.local/state-old", "", false},
	}
	for _, f := range devicepolicy.Forbidden(home) {
		rel := strings.TrimPrefix(f, home+"/")
		cases = append(cases,
			Case{"credential ~/" + rel, f, "is a credential folder", false},
			Case{"inside credential ~/" + rel, f + "/sub", "lies inside the credential folder " + f, false})
	}
	cases = append(cases, agentCases(t, l)...)
	for _, c := range cases {
		if c.Root != "/" && c.Root != home+"/.claude.json" {
			if err := os.MkdirAll(c.Root, 0o700); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(home+"/.claude.json", []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	return append(cases, linked(t, home, cases)...)
}

// agentCases are every client's configuration home, at its default place
// and where l's environment moves it: the home, inside it, and its parent
// (unless that is the home folder, refused as such).
func agentCases(t testing.TB, l Layout) []Case {
	noEnv := func(string) string { return "" }
	var cases []Case
	for _, name := range clientconfig.Clients() {
		c, err := clientconfig.LookupClient(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, how := range []struct {
			name string
			env  appdirs.Getenv
		}{{"default", noEnv}, {"moved", l.Getenv}} {
			dir := c.Dir(how.env, l.Home)
			cases = append(cases,
				Case{name + "'s " + how.name + " configuration home", dir, "is an agent's configuration home", false},
				Case{"inside " + name + "'s " + how.name + " configuration home", dir + "/projects", "lies inside the agent configuration home " + dir, false})
			if up := filepath.Dir(dir); up != l.Home {
				cases = append(cases, Case{"holding " + name + "'s " + how.name + " configuration home", up, "contains", false})
			}
		}
		for _, dir := range c.HomeFolders(l.Home) {
			cases = append(cases,
				Case{name + "'s configuration folder " + dir, dir, "is an agent's configuration home", false},
				Case{"inside " + name + "'s configuration folder " + dir, dir + "/plugins", "lies inside the agent configuration home " + dir, false})
		}
	}
	return cases
}

// linked is every refused case again, through a link from an ordinary
// folder to its root.
func linked(t testing.TB, home string, cases []Case) []Case {
	var out []Case
	for i, c := range cases {
		if c.Want == "" || c.Root == "/" || strings.HasSuffix(c.Root, "/") {
			continue
		}
		link := fmt.Sprintf("%s/links/%d", home, i)
		if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(c.Root, link); err != nil {
			t.Fatal(err)
		}
		out = append(out, Case{c.Name + ", through a link", link, c.Want, c.WorkspaceOnly})
	}
	return out
}
