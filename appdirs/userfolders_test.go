package appdirs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestUserFolders pins the person's own folders, one row per folder and
// per way user-dirs.dirs can move or disable one: every XDG user folder
// is listed, a folder set to the home folder is left out (never replaced
// by its default), and macOS lists the Finder's folders whatever the file
// says.
func TestUserFolders(t *testing.T) {
	const home = "/home/u"
	all := []string{home + "/Desktop", home + "/Documents", home + "/Downloads", home + "/Music",
		home + "/Pictures", home + "/Public", home + "/Templates", home + "/Videos"}
	without := func(drop string) []string {
		return slices.DeleteFunc(slices.Clone(all), func(s string) bool { return s == drop })
	}
	with := func(old, now string) []string {
		out := slices.Clone(all)
		out[slices.Index(out, old)] = now
		return out
	}
	tests := []struct {
		name, goos, dirs string
		want             []string
	}{
		{name: "no file: every default", goos: "linux", want: all},
		{name: "Desktop moved", goos: "linux", dirs: `XDG_DESKTOP_DIR="$HOME/Bureau"`, want: with(home+"/Desktop", home+"/Bureau")},
		{name: "Documents moved", goos: "linux", dirs: `XDG_DOCUMENTS_DIR="/data/docs"`, want: with(home+"/Documents", "/data/docs")},
		{name: "Downloads moved", goos: "linux", dirs: `XDG_DOWNLOAD_DIR="$HOME/dl"`, want: with(home+"/Downloads", home+"/dl")},
		{name: "Music moved", goos: "linux", dirs: `XDG_MUSIC_DIR="$HOME/Musique"`, want: with(home+"/Music", home+"/Musique")},
		{name: "Pictures moved", goos: "linux", dirs: `XDG_PICTURES_DIR="$HOME/Images"`, want: with(home+"/Pictures", home+"/Images")},
		{name: "Public moved", goos: "linux", dirs: `XDG_PUBLICSHARE_DIR="$HOME/Public2"`, want: with(home+"/Public", home+"/Public2")},
		{name: "Templates moved", goos: "linux", dirs: `XDG_TEMPLATES_DIR="$HOME/Modèles"`, want: with(home+"/Templates", home+"/Modèles")},
		{name: "Videos moved", goos: "linux", dirs: `XDG_VIDEOS_DIR="$HOME/Vidéos"`, want: with(home+"/Videos", home+"/Vidéos")},
		{name: "Desktop set to HOME is disabled", goos: "linux", dirs: `XDG_DESKTOP_DIR="$HOME/"`, want: without(home + "/Desktop")},
		{name: "Templates set to HOME is disabled", goos: "linux", dirs: `XDG_TEMPLATES_DIR="$HOME"`, want: without(home + "/Templates")},
		{name: "a folder holding HOME is disabled", goos: "linux", dirs: `XDG_MUSIC_DIR="/home"`, want: without(home + "/Music")},
		{name: "two keys on one folder listed once", goos: "linux",
			dirs: "XDG_TEMPLATES_DIR=\"$HOME/Documents\"\n", want: without(home + "/Templates")},
		{name: "an unusable value keeps the default", goos: "linux", dirs: `XDG_VIDEOS_DIR="Videos2"`, want: all},
		{name: "macOS: the Finder's folders", goos: "darwin", dirs: `XDG_DOCUMENTS_DIR="/data/docs"`,
			want: []string{home + "/Desktop", home + "/Documents", home + "/Downloads", home + "/Movies", home + "/Music",
				home + "/Pictures", home + "/Public"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			config := t.TempDir()
			if tc.dirs != "" {
				if err := os.WriteFile(filepath.Join(config, "user-dirs.dirs"), []byte(tc.dirs+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": config}[k] }
			if got := userFoldersOn(tc.goos, getenv, home); !slices.Equal(got, tc.want) {
				t.Errorf("user folders = %q\nwant %q", got, tc.want)
			}
		})
	}
}
