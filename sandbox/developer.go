package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// xcodeSelectLink is where xcode-select keeps the developer folder it
// chose (/usr/bin's git, make and cc run what it names).
const xcodeSelectLink = "/private/var/db/xcode_select_link"

// DeveloperDir is the developer folder the xcode-select link names
// (canonical), or the Xcode bundle holding it (xcrun reads the bundle's
// version); "" when there is none.
func DeveloperDir(link string) string {
	dir, err := filepath.EvalSymlinks(link)
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	if app, ok := strings.CutSuffix(dir, "/Contents/Developer"); ok && strings.HasSuffix(app, ".app") {
		return app
	}
	return dir
}
