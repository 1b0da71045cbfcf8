package cli

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pathgrant/sandbox"
	"pathgrant/wire"
)

// onlyDownloads is a user-dirs.dirs that disables every user folder but
// Downloads.
const onlyDownloads = `XDG_DESKTOP_DIR="$HOME/"
XDG_DOCUMENTS_DIR="$HOME/"
XDG_MUSIC_DIR="$HOME/"
XDG_PICTURES_DIR="$HOME/"
XDG_PUBLICSHARE_DIR="$HOME/"
XDG_TEMPLATES_DIR="$HOME/"
XDG_VIDEOS_DIR="$HOME/"
`

// TestDoctorRootPlaces: doctor says, one line each, where the home
// folder, an eligible root (Downloads) or a live session's workspace lies
// in /tmp, /dev/shm, /var/tmp or /run, and what that means; nothing for
// roots anywhere else, for ended sessions, or when the daemon refuses
// the list of sessions.
func TestDoctorRootPlaces(t *testing.T) {
	live := wire.SessionInfo{ID: "s1", Workspace: []string{"/tmp/proj"}}
	ended := wire.SessionInfo{ID: "s2", Workspace: []string{"/dev/shm/old"}, Ended: time.Now()}
	tests := []struct {
		name     string
		env      map[string]string
		sessions []wire.SessionInfo
		refused  bool
		goos     string
		userDirs string   // the user-dirs.dirs file's text, when set
		want     []string // each line's detail starts so, in order
		status   []string
	}{
		{name: "home and Downloads in the usual place", env: map[string]string{"HOME": "/home/u"}},
		{name: "home in /tmp, so Downloads too", env: map[string]string{"HOME": "/tmp/u"},
			want:   []string{"the home folder /tmp/u lies in /tmp", "eligible root /tmp/u/Downloads lies in /tmp"},
			status: []string{doctorWarn, doctorWarn}},
		{name: "Downloads in /dev/shm", env: map[string]string{"HOME": "/home/u"}, userDirs: `XDG_DOWNLOAD_DIR="/dev/shm/dl"`,
			want: []string{"eligible root /dev/shm/dl lies in /dev/shm"}, status: []string{doctorWarn}},
		{name: "home in /var/tmp", env: map[string]string{"HOME": "/var/tmp/u"},
			want:   []string{"the home folder /var/tmp/u lies in /var/tmp", "eligible root /var/tmp/u/Downloads lies in /var/tmp"},
			status: []string{doctorInfo, doctorInfo}},
		{name: "a live session's workspace in /tmp, an ended one's in /dev/shm", env: map[string]string{"HOME": "/home/u"},
			sessions: []wire.SessionInfo{live, ended},
			want:     []string{"session s1's workspace /tmp/proj lies in /tmp"}, status: []string{doctorWarn}},
		{name: "the list of sessions refused", env: map[string]string{"HOME": "/home/u"}, sessions: []wire.SessionInfo{live}, refused: true},
		{name: "/tmpfoo is not /tmp", env: map[string]string{"HOME": "/tmpfoo/u"}},
		{name: "macOS: no private /tmp, nothing said", env: map[string]string{"HOME": "/tmp/u"}, goos: "darwin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := maps.Clone(tt.env)
			// every user folder but Downloads disabled (set to the home
			// folder), so that the rows speak of one eligible root
			vars["XDG_CONFIG_HOME"] = t.TempDir()
			dirs := onlyDownloads + tt.userDirs + "\n"
			if err := os.WriteFile(filepath.Join(vars["XDG_CONFIG_HOME"], "user-dirs.dirs"), []byte(dirs), 0o600); err != nil {
				t.Fatal(err)
			}
			env := doctorEnv{GOOS: tt.goos, Getenv: func(k string) string { return vars[k] },
				Sessions: func(context.Context, string) ([]wire.SessionInfo, error) {
					if tt.refused {
						return nil, errors.New("403 Forbidden")
					}
					return tt.sessions, nil
				}}
			got := rootPlaceChecks(env, "/run/pathgrant.sock", true)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d lines, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, c := range got {
				if c.Name != "root place" || c.Status != tt.status[i] || !strings.HasPrefix(c.Detail, tt.want[i]+": ") {
					t.Errorf("line %d: %+v; want %s %q…", i, c, tt.status[i], tt.want[i])
				}
			}
		})
	}
}

// TestDoctorRootPlacesNameEveryPrivateRoot: each of the view's private
// roots has its line, saying what a root beneath it means for confined
// commands.
func TestDoctorRootPlacesNameEveryPrivateRoot(t *testing.T) {
	for _, r := range sandbox.PrivateRoots {
		i := slices.IndexFunc(rootPlaces, func(p rootPlace) bool { return p.dir == r })
		if i < 0 || !strings.Contains(rootPlaces[i].means, "TMPDIR") {
			t.Errorf("no line for the private root %s saying what it means", r)
		}
	}
}
