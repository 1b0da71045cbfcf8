package hooks

import (
	"testing"
)

// TestPiSearchRootsAndReadVariants: Pi expands a search root's "~" to the
// home folder (its expandPath), and its read opens a variant of a missing
// file's path (its resolveReadPath), so the hook checks the folder Pi
// searches and every file Pi's read may open.
func TestPiSearchRootsAndReadVariants(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	cases := []pathCase{
		{"a grep in the home folder", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"grep","input":{"pattern":"PRIVATE","path":"~/.ssh"}}`,
			[]Access{{Command: "ls -R -- '/home/u/.ssh'"}}},
		{"a grep of @~", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"grep","input":{"pattern":"x","path":"@~"}}`,
			[]Access{{Command: "ls -R -- '/home/u'"}}},
		{"a find in the home folder", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"find","input":{"pattern":"*","path":"~/.ssh"}}`,
			[]Access{{Command: "ls -R -- '/home/u/.ssh'"}}},
		{"a find of a relative path searches all of its folder", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"find","input":{"pattern":"src/*.ts","path":"/d"}}`,
			[]Access{{Command: "ls -R -- '/d'"}}},
		{"a find of an absolute pattern", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"find","input":{"pattern":"/d/src/*.ts","path":"/"}}`,
			[]Access{{Command: "ls -R -- '/d/src'"}}},
		{"a find's ~name is a name in the cwd", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"find","input":{"pattern":"*","path":"~root"}}`,
			[]Access{{Command: "ls -R -- '~root'"}}},
		{"a read of a composed name is a read of its decomposed one too", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"read","input":{"path":"caf\u00e9/id_rsa"}}`,
			[]Access{{Op: "read", Path: "/w/caf\u00e9/id_rsa"}, {Op: "read", Path: "/w/cafe\u0301/id_rsa"}}},
		{"a read with an apostrophe is a read of its curly one too", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"read","input":{"path":"/d/it's/x"}}`,
			[]Access{{Op: "read", Path: "/d/it's/x"}, {Op: "read", Path: "/d/it\u2019s/x"}}},
		{"a read of a screenshot's name", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"read","input":{"path":"/d/Shot 9.41 pm.png"}}`,
			[]Access{{Op: "read", Path: "/d/Shot 9.41 pm.png"}, {Op: "read", Path: "/d/Shot 9.41\u202fpm.png"}}},
		{"a read of both", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"read","input":{"path":"/d/d'\u00e9/x"}}`,
			[]Access{{Op: "read", Path: "/d/d'\u00e9/x"}, {Op: "read", Path: "/d/d'e\u0301/x"}, {Op: "read", Path: "/d/d\u2019\u00e9/x"}, {Op: "read", Path: "/d/d\u2019e\u0301/x"}}},
		{"a plain read is one read", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"read","input":{"path":"a.txt"}}`,
			[]Access{{Op: "read", Path: "/w/a.txt"}}},
	}
	runPathCases(t, "pi", cases)
}

// TestPiPathsAsPiTakesThem: Pi drops one leading "@" from a tool's path
// and reads Unicode spaces as plain ones before resolving it (its
// expandPath), so the hook checks the path Pi opens, not a name inside the
// workspace that Pi never opens.
func TestPiPathsAsPiTakesThem(t *testing.T) {
	cases := []pathCase{
		{"an @ before an absolute path", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"read","input":{"path":"@/h/.ssh/id_rsa"}}`,
			[]Access{{Op: "read", Path: "/h/.ssh/id_rsa"}}},
		{"an @ before a home path", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"write","input":{"path":"@~/.bashrc","content":"x"}}`,
			[]Access{{Op: "write", Path: "~/.bashrc"}}},
		{"an @ before a search's folder", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"ls","input":{"path":"@/d"}}`,
			[]Access{{Op: "read", Path: "/d"}}},
		{"a no-break space", "{\"hook_event_name\":\"tool_call\",\"cwd\":\"/w\",\"tool_name\":\"read\",\"input\":{\"path\":\"/d/a\u00a0b\"}}",
			[]Access{{Op: "read", Path: "/d/a b"}}},
		{"only one @ is dropped", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"read","input":{"path":"@@x"}}`,
			[]Access{{Op: "read", Path: "/w/@x"}}},
	}
	runPathCases(t, "pi", cases)
}
