package devicepolicy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var testEnv = Env{Home: "/home/u", Downloads: "/home/u/Downloads", UserFolders: userFolders}

// userFolders are testEnv's user folders, as appdirs.UserFolders lists
// them with no user-dirs.dirs.
var userFolders = []string{"/home/u/Desktop", "/home/u/Documents", "/home/u/Downloads", "/home/u/Music",
	"/home/u/Pictures", "/home/u/Public", "/home/u/Templates", "/home/u/Videos"}

func TestDefaults(t *testing.T) {
	p, err := Load(t.TempDir(), testEnv)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"every user folder eligible", slices.Equal(p.EligibleReadOnly, userFolders)},
		{"~/.ssh never eligible", slices.Contains(p.NeverEligible, "/home/u/.ssh")},
		{"~/.config never eligible", slices.Contains(p.NeverEligible, "/home/u/.config")},
		{"~/go a toolchain", slices.Contains(p.Toolchains, "/home/u/go")},
		{"/usr/local a toolchain", slices.Contains(p.Toolchains, "/usr/local")},
		{"~/.cache a cache", slices.Contains(p.Caches, "/home/u/.cache")},
		{"~/.gitconfig readable", slices.Contains(p.ReadOnlyFiles, "/home/u/.gitconfig")},
		{"unknown tools ask the client", p.UnknownTools == AskClient},
		{"unmapped tools are denied", p.UnmappedTools == DenyTool},
		{"confinement on", p.Confinement},
		{"no ssh agent", !p.SSHAgent},
		{"90 days", p.RetentionDays == 90},
		{"public network destinations reached", p.Network.Mode == NetAllowPublic},
		{"no network pattern or range", len(p.Network.Allow)+len(p.Network.Refuse)+len(p.Network.AllowRanges) == 0},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Errorf("defaults %+v", p)
			}
		})
	}
	if err := p.check(testEnv.Home, func(string) string { return "" }); err != nil {
		t.Errorf("the defaults are refused: %v", err)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, file, data string
		check            func(Policy) bool
		wantErr          string // in the error; "" for none
	}{
		{"toml overrides", "policy.toml", `
toolchains = ["~/sdk", "/opt/go"]
caches = []
confinement = false
ssh_agent = true
unknown_tools = "deny"
retention_days = 30
`, func(p Policy) bool {
			return slices.Equal(p.Toolchains, []string{"/home/u/sdk", "/opt/go"}) && len(p.Caches) == 0 &&
				!p.Confinement && p.SSHAgent && p.UnknownTools == DenyTool && p.RetentionDays == 30 &&
				slices.Contains(p.ReadOnlyFiles, "/home/u/.gitconfig") // left out: default
		}, ""},
		{"json overrides", "policy.json", `{"eligible_read_only": ["/data/in"], "confinement": true}`,
			func(p Policy) bool { return slices.Equal(p.EligibleReadOnly, []string{"/data/in"}) && p.Confinement }, ""},
		{"~/.ssh as a toolchain", "policy.toml", "# mine\ntoolchains = [\"~/.ssh\"]\n", nil, "line 2: toolchains: /home/u/.ssh is never allowed"},
		{"inside ~/.aws", "policy.toml", "caches = [\"/home/u/.aws/cli/cache\"]\n", nil, "line 1: caches: /home/u/.aws/cli/cache is never allowed"},
		{"home holds ~/.gnupg", "policy.toml", "read_only_files = [\"~\"]\n", nil, "read_only_files: /home/u is never allowed"},
		{"browser profile eligible", "policy.json", "{\n  \"eligible_read_only\": [\"/home/u/.mozilla/firefox\"]\n}", nil, "line 2: eligible_read_only"},
		{"password store", "policy.toml", "eligible_read_only = [\"~/.password-store\"]\n", nil, "never allowed"},
		{"gh config", "policy.toml", "read_only_files = [\"~/.config/gh/hosts.yml\"]\n", nil, "never allowed"},
		{"root", "policy.toml", "toolchains = [\"/\"]\n", nil, "never allowed"},
		{"unknown toml field", "policy.toml", "confinement = true\nconfinment = false\n", nil, `line 2: unknown field "confinment"`},
		{"unknown json field", "policy.json", "{\n\"confinement\": true,\n\"sshagent\": true}", nil, `line 3: unknown field "sshagent"`},
		{"wrong type", "policy.toml", "confinement = \"yes\"\n", nil, "line 1"},
		{"relative path", "policy.toml", "caches = [\"cache\"]\n", nil, "not an absolute path"},
		{"allow_protected", "policy.toml", "allow_protected = [\".vscode\", \".git/config\"]\n",
			func(p Policy) bool { return slices.Equal(p.AllowProtected, []string{".vscode", ".git/config"}) }, ""},
		{"allow_protected unknown", "policy.toml", "allow_protected = [\".vscod\"]\n", nil, `line 1: allow_protected: ".vscod" is not a protected member`},
		{"bad unknown_tools", "policy.toml", "unknown_tools = \"allow\"\n", nil, "unknown_tools"},
		{"unmapped_tools ask-client", "policy.toml", "unmapped_tools = \"ask-client\"\n",
			func(p Policy) bool { return p.UnmappedTools == AskClient && p.UnknownTools == AskClient }, ""},
		{"unmapped_tools deny in json", "policy.json", `{"unmapped_tools": "deny", "unknown_tools": "deny"}`,
			func(p Policy) bool { return p.UnmappedTools == DenyTool && p.UnknownTools == DenyTool }, ""},
		{"unmapped_tools left out", "policy.toml", "unknown_tools = \"deny\"\n",
			func(p Policy) bool { return p.UnmappedTools == DenyTool }, ""},
		{"bad unmapped_tools", "policy.toml", "# mine\nunmapped_tools = \"allow\"\n", nil, `line 2: unmapped_tools: "allow" is neither "ask-client" nor "deny"`},
		{"empty unmapped_tools", "policy.toml", "unmapped_tools = \"\"\n", nil, `unmapped_tools: "" is neither`},
		{"unmapped_tools not a string", "policy.toml", "unmapped_tools = true\n", nil, "line 1"},
		{"zero retention", "policy.toml", "retention_days = 0\n", nil, "retention_days"},
		{"toml syntax", "policy.toml", "toolchains = [\n", nil, "policy.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.file, []byte(tt.data), testEnv)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want one line containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(p) {
				t.Errorf("policy %+v", p)
			}
		})
	}
}

func TestLoadBothFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{TOMLName, JSONName} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Load(dir, testEnv); err == nil || !strings.Contains(err.Error(), "keep one") {
		t.Errorf("error %v, want both files refused", err)
	}
}

func TestLocate(t *testing.T) {
	home := t.TempDir()
	tests := []struct {
		name, dirs, want string
		folder           bool // want is one of the user folders
	}{
		{"no file", "", home + "/Downloads", true},
		{"home relative", `XDG_DOWNLOAD_DIR="$HOME/Telechargements"` + "\n", home + "/Telechargements", true},
		{"absolute", `XDG_DOWNLOAD_DIR="/data/dl"` + "\n", "/data/dl", true},
		{"the home folder itself is refused", `XDG_DOWNLOAD_DIR="$HOME/"` + "\n", home + "/Downloads", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := t.TempDir()
			if tt.dirs != "" {
				if err := os.WriteFile(config+"/user-dirs.dirs", []byte(tt.dirs), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": config}
			got, err := Locate(func(k string) string { return env[k] })
			if err != nil || got.Downloads != tt.want {
				t.Errorf("Locate = %+v, %v; want Downloads %s", got, err, tt.want)
			}
			if slices.Contains(got.UserFolders, tt.want) != tt.folder || slices.Contains(got.UserFolders, home) {
				t.Errorf("user folders %q: %s among them is not %v", got.UserFolders, tt.want, tt.folder)
			}
			if !slices.Contains(got.Own, config+"/pathgrant") {
				t.Errorf("own folders %q lack the config folder", got.Own)
			}
		})
	}
}

// TestRead: the environment names the folder and the defaults' roots; what
// Load refuses, Read refuses.
func TestRead(t *testing.T) {
	home := t.TempDir()
	tests := []struct {
		name, file, data string
		noHome           bool
		check            func(Policy) bool
		wantErr          string
	}{
		{name: "no file: defaults under $HOME", check: func(p Policy) bool {
			return slices.Contains(p.EligibleReadOnly, home+"/Documents") && slices.Contains(p.EligibleReadOnly, home+"/Downloads") &&
				p.UnknownTools == AskClient
		}},
		{name: "toml in XDG_CONFIG_HOME", file: TOMLName, data: "unknown_tools = \"deny\"\ncaches = [\"~/c\"]\n", check: func(p Policy) bool {
			return p.UnknownTools == DenyTool && slices.Equal(p.Caches, []string{home + "/c"})
		}},
		{name: "json in XDG_CONFIG_HOME", file: JSONName, data: `{"retention_days": 7}`, check: func(p Policy) bool { return p.RetentionDays == 7 }},
		{name: "a refused file", file: TOMLName, data: "caches = [\"~/.ssh\"]\n", wantErr: "never allowed"},
		{name: "no $HOME", noHome: true, wantErr: "$HOME"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := t.TempDir()
			if tt.file != "" {
				if err := os.MkdirAll(config+"/pathgrant", 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(config+"/pathgrant/"+tt.file, []byte(tt.data), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": config}
			if tt.noHome {
				delete(env, "HOME")
			}
			p, err := Read(func(k string) string { return env[k] })
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case !tt.check(p):
				t.Errorf("policy %+v", p)
			}
		})
	}
}
