package afterrun

import (
	"os"
	"path/filepath"
	"slices"
)

// RemovePlaceholders removes the empty files and folders the view's
// mounts made in the workspace to hold the place of absent protected
// members (sandbox.View.Placeholders): bubblewrap creates a mount point
// where it mounts, and the workspace is the person's own folder. One
// that is no longer empty is left, and said. Check calls it first,
// before the walk (which would otherwise report them as made by the
// command). The deepest go first: a placeholder below another leaves
// its parent empty, to be removed in turn.
func RemovePlaceholders(paths []string) []Finding {
	var out []Finding
	deepestFirst := slices.Clone(paths)
	slices.Sort(deepestFirst)
	slices.Reverse(deepestFirst)
	for _, p := range slices.Compact(deepestFirst) {
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case linkOnTheWay(p):
			out = append(out, Finding{p, "a folder on the way to a placeholder the view made is now a link: left alone"})
		case fi.Mode().IsRegular() && fi.Size() == 0, fi.IsDir() && emptyDir(p):
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				out = append(out, Finding{p, "a placeholder the view made could not be removed: " + err.Error()})
			}
		default:
			out = append(out, Finding{p, "a placeholder the view made is no longer empty: left in place"})
		}
	}
	return out
}

func emptyDir(p string) bool {
	es, err := os.ReadDir(p)
	return err == nil && len(es) == 0
}

// linkOnTheWay reports whether a folder on the way to p is a link now
// (a placeholder is recorded as the view made it, links resolved): the
// removal would follow it, out of the workspace.
func linkOnTheWay(p string) bool {
	dir := filepath.Dir(p)
	real, err := filepath.EvalSymlinks(dir)
	return err != nil || real != dir
}

// StillPlaceholder reports whether p is still what a view's placeholder
// is: an empty folder, not a link to one.
func StillPlaceholder(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir() && emptyDir(p)
}
