package hooks

import (
	"testing"
)

// TestDroidPathsAsDroidTakesThem: Droid trims a Glob pattern and anchors
// one starting with "/" at its folder (rg --glob), resolves a Create's or
// Edit's path without expanding "~", and reads a screenshot's name with a
// narrow no-break space when the name as written is missing.
func TestDroidPathsAsDroidTakesThem(t *testing.T) {
	in := func(tool, args string) string {
		return `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"` + tool + `","tool_input":` + args + `}`
	}
	tree := func(p string) Access { return Access{Command: "ls -R -- '" + p + "'"} }
	cases := []pathCase{
		{"a glob pattern after a space", in("Glob", `{"patterns":[" /h/.ssh/*"]}`),
			[]Access{tree("/h/.ssh"), tree("/w/h/.ssh")}},
		{"an absolute pattern is also anchored at the folder", in("Glob", `{"patterns":"/src/*.go","folder":"/d"}`),
			[]Access{tree("/src"), tree("/d/src")}},
		{"a relative pattern is one root", in("Glob", `{"patterns":["src/**/*.go"]}`),
			[]Access{tree("/w/src")}},
		{"a create in ~ is a folder named ~ in the cwd", in("Create", `{"file_path":"~/.bashrc","content":"x"}`),
			[]Access{{Op: "write", Path: "/w/~/.bashrc"}}},
		{"an edit too", in("Edit", `{"file_path":"~/x","old_str":"a","new_str":"b"}`),
			[]Access{{Op: "write", Path: "/w/~/x"}}},
		{"a screenshot's name", in("Read", `{"file_path":"/d/Shot 9.41 PM.png"}`),
			[]Access{{Op: "read", Path: "/d/Shot 9.41 PM.png"}, {Op: "read", Path: "/d/Shot 9.41\u202fPM.png"}}},
	}
	runPathCases(t, "droid", cases)
}
