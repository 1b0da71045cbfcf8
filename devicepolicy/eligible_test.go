package devicepolicy

import (
	"slices"
	"strings"
	"testing"
)

// TestEligible pins which roots are eligible for read-only approval, one
// row per case: every user folder by default, a user folder pointing
// into a folder never offered left out, a file's list replacing the
// default as it always did, user_folders narrowing and widening, and a
// file naming a folder never offered refused on its line.
func TestEligible(t *testing.T) {
	const h = "/home/u"
	env := func(folders ...string) Env { return Env{Home: h, UserFolders: folders} }
	tests := []struct {
		name, data string
		env        Env
		want       []string // the eligible roots, in order
		wantErr    string
	}{
		{name: "Desktop", env: env(h + "/Desktop"), want: []string{h + "/Desktop"}},
		{name: "Documents", env: env(h + "/Documents"), want: []string{h + "/Documents"}},
		{name: "Downloads", env: env(h + "/Downloads"), want: []string{h + "/Downloads"}},
		{name: "Music", env: env(h + "/Music"), want: []string{h + "/Music"}},
		{name: "Pictures", env: env(h + "/Pictures"), want: []string{h + "/Pictures"}},
		{name: "Public", env: env(h + "/Public"), want: []string{h + "/Public"}},
		{name: "Templates", env: env(h + "/Templates"), want: []string{h + "/Templates"}},
		{name: "Videos", env: env(h + "/Videos"), want: []string{h + "/Videos"}},
		{name: "macOS Movies", env: env(h + "/Movies"), want: []string{h + "/Movies"}},
		{name: "every user folder", env: testEnv, want: userFolders},
		{name: "a user folder pointing at ~/.ssh is left out", env: env(h+"/.ssh", h+"/Documents"), want: []string{h + "/Documents"}},
		{name: "a user folder in ~/.config is left out", env: env(h+"/.config/docs", h+"/Music"), want: []string{h + "/Music"}},
		{name: "a user folder in ~/.local/share is left out", env: env(h + "/.local/share/Pictures"), want: []string{}},
		{name: "a user folder in an agent's home is left out", env: env(h + "/.claude/projects"), want: []string{}},
		{name: "a user folder in pathgrant's state is left out", env: Env{Home: h, UserFolders: []string{"/s/pathgrant/x", h + "/Videos"}, Own: []string{"/s/pathgrant"}},
			want: []string{h + "/Videos"}},
		{name: "a user folder inside another is the other", env: env(h+"/Documents", h+"/Documents/Music"), want: []string{h + "/Documents"}},
		{name: "narrowed: user_folders = false", env: testEnv, data: "user_folders = false\n", want: []string{}},
		{name: "narrowed: a list replaces the default", env: testEnv, data: "eligible_read_only = [\"~/Documents\"]\n", want: []string{h + "/Documents"}},
		{name: "an old file's list is the whole list", env: testEnv, data: "eligible_read_only = [\"~/Downloads\", \"/data/shared\"]\n",
			want: []string{h + "/Downloads", "/data/shared"}},
		{name: "an empty list: nothing eligible", env: testEnv, data: "eligible_read_only = []\n", want: []string{}},
		{name: "widened: a list and user_folders = true", env: env(h+"/Documents", h+"/Downloads"),
			data: "eligible_read_only = [\"/data/shared\"]\nuser_folders = true\n", want: []string{"/data/shared", h + "/Documents", h + "/Downloads"}},
		{name: "widened in json", env: env(h + "/Documents"), data: `{"eligible_read_only": ["/data/in"], "user_folders": true}`,
			want: []string{"/data/in", h + "/Documents"}},
		{name: "a listed root inside a user folder adds nothing", env: env(h + "/Documents"),
			data: "eligible_read_only = [\"~/Documents/reports\"]\nuser_folders = true\n", want: []string{h + "/Documents"}},
		{name: "~/.config named is refused", env: testEnv, data: "# mine\neligible_read_only = [\"~/.config\"]\n",
			wantErr: "line 2: eligible_read_only: /home/u/.config is never"},
		{name: "a folder in ~/.config named is refused", env: testEnv, data: "eligible_read_only = [\"~/.config/app/docs\"]\n",
			wantErr: "line 1: eligible_read_only: /home/u/.config/app/docs is never offered"},
		{name: "~/.local named is refused", env: testEnv, data: "eligible_read_only = [\"~/.local\"]\n", wantErr: "/home/u/.local is never"},
		{name: "~/.local/state named is refused", env: testEnv, data: "eligible_read_only = [\"~/.local/state/x\"]\n", wantErr: "/home/u/.local/state/x is never offered"},
		{name: "~/.ssh named is refused", env: testEnv, data: "eligible_read_only = [\"~/.ssh\"]\n", wantErr: "never allowed"},
		{name: "an agent's home named is refused", env: testEnv, data: "eligible_read_only = [\"~/.codex\"]\n", wantErr: "never offered"},
		{name: "pathgrant's state named is refused", env: Env{Home: h, Own: []string{"/s/pathgrant"}}, data: "eligible_read_only = [\"/s\"]\n",
			wantErr: "/s is never offered for approval: it holds or lies in /s/pathgrant"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse("policy.toml", []byte(tc.data), tc.env)
			if strings.HasPrefix(tc.data, "{") {
				p, err = Parse("policy.json", []byte(tc.data), tc.env)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.EligibleReadOnly, tc.want) {
				t.Errorf("eligible = %q\nwant %q", p.EligibleReadOnly, tc.want)
			}
			if tc.data == "" { // the defaults agree with a file that says nothing
				if d := Defaults(tc.env); !slices.Equal(d.EligibleReadOnly, tc.want) && !(len(d.EligibleReadOnly) == 0 && len(tc.want) == 0) {
					t.Errorf("defaults' eligible = %q, want %q", d.EligibleReadOnly, tc.want)
				}
			}
		})
	}
}

// TestNeverEligibleOn: the credential folders, configuration and state,
// the agents' homes and pathgrant's own are never offered; macOS adds all
// of ~/Library; the person's own folders are not in the list.
func TestNeverEligibleOn(t *testing.T) {
	env := Env{Home: "/Users/u", Own: []string{"/st/pathgrant"}}
	tests := []struct {
		goos, path string
		want       bool
	}{
		{"linux", "/Users/u/.ssh", true},
		{"linux", "/Users/u/.gnupg", true},
		{"linux", "/Users/u/.aws", true},
		{"linux", "/Users/u/.config", true},
		{"linux", "/Users/u/.local/share", true},
		{"linux", "/Users/u/.local/state", true},
		{"linux", "/Users/u/.local/share/keyrings", true},
		{"linux", "/Users/u/.mozilla", true},
		{"linux", "/Users/u/.claude", true},
		{"linux", "/st/pathgrant", true},
		{"linux", "/Users/u/Library", false},
		{"darwin", "/Users/u/Library", true},
		{"linux", "/Users/u/Documents", false},
		{"darwin", "/Users/u/Documents", false},
	}
	for _, tc := range tests {
		t.Run(tc.goos+tc.path, func(t *testing.T) {
			if got := slices.Contains(neverEligibleOn(tc.goos, env), tc.path); got != tc.want {
				t.Errorf("neverEligibleOn(%s) holds %s: %v, want %v", tc.goos, tc.path, got, tc.want)
			}
		})
	}
}
