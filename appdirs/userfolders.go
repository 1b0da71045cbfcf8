package appdirs

import (
	"path/filepath"
	"runtime"
	"slices"
)

// linuxUserFolders are the XDG user folders pathgrant offers for
// read-only approval by default: the user-dirs.dirs key and the name
// below the home folder when the file does not set it. XDG_PUBLICSHARE_DIR
// is the spec's spelling of Public.
var linuxUserFolders = []struct{ key, name string }{
	{"XDG_DESKTOP_DIR", "Desktop"}, {"XDG_DOCUMENTS_DIR", "Documents"}, {"XDG_DOWNLOAD_DIR", "Downloads"},
	{"XDG_MUSIC_DIR", "Music"}, {"XDG_PICTURES_DIR", "Pictures"}, {"XDG_PUBLICSHARE_DIR", "Public"},
	{"XDG_TEMPLATES_DIR", "Templates"}, {"XDG_VIDEOS_DIR", "Videos"},
}

// darwinUserFolders are the Finder's counterparts on macOS, which has no
// user-dirs.dirs: always these names below the home folder.
var darwinUserFolders = []string{"Desktop", "Documents", "Downloads", "Movies", "Music", "Pictures", "Public"}

// userFoldersOn lists the person's own folders on goos: on Linux each
// XDG user folder as user-dirs.dirs sets it (a folder the file disables
// by setting it to the home folder is left out, never replaced by its
// default), else ~/Name; on macOS the Finder's folders. Each appears
// once, in the table's order; whether it exists is the caller's concern.
func userFoldersOn(goos string, getenv Getenv, home string) []string {
	var out []string
	add := func(dir string) {
		if dir != "" && !slices.Contains(out, dir) {
			out = append(out, dir)
		}
	}
	if goos == darwin {
		for _, n := range darwinUserFolders {
			add(filepath.Join(home, n))
		}
		return out
	}
	set := readUserDirs(getenv, home)
	for _, f := range linuxUserFolders {
		dir, ok := set[f.key]
		if !ok {
			dir = filepath.Join(home, f.name)
		}
		add(dir)
	}
	return out
}

// UserFolders are the person's own folders (userFoldersOn): Desktop,
// Documents, Downloads, Music, Pictures, Public, Templates and Videos as
// user-dirs.dirs places them on Linux, the Finder's folders on macOS.
// Reads under them are what a session may ask the person to approve by
// default (package devicepolicy leaves out any that lies in a folder
// never offered).
func UserFolders(getenv Getenv, home string) []string {
	return userFoldersOn(runtime.GOOS, getenv, home)
}
