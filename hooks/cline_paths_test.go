package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClineReadsAsClineTakesThem: Cline's read_files opens a variant of a
// missing file's path (its resolveExistingFilePath: AM/PM, NFD, curly
// apostrophes, a name in its folder that differs in Unicode spaces or
// normalisation), so the hook checks every file Cline may open.
func TestClineReadsAsClineTakesThem(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/h/.ssh/id_rsa", filepath.Join(dir, "a\u00a0b")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	in := func(files string) string {
		return `{"hookName":"tool_call","workspaceRoots":["` + strings.ReplaceAll(dir, `"`, `\"`) + `"],"tool_call":{"id":"1","name":"read_files","input":` + files + `}}`
	}
	reads := func(paths ...string) []Access {
		var out []Access
		for _, p := range paths {
			out = append(out, Access{Op: "read", Path: p})
		}
		return out
	}
	cases := []pathCase{
		{"a name its folder holds with a no-break space", in(`{"files":[{"path":"a b"}]}`),
			reads(dir+"/a b", dir+"/a\u00a0b")},
		{"a decomposed folder", in(`["/d/caf\u00e9/x"]`),
			reads("/d/caf\u00e9/x", "/d/cafe\u0301/x")},
		{"a curly apostrophe", in(`"/d/it's"`),
			reads("/d/it's", "/d/it\u2019s")},
		{"a screenshot's name, its folder as written", in(`"/d/ 1 AM./Shot 9.41 AM.png"`),
			reads("/d/ 1 AM./Shot 9.41 AM.png", "/d/ 1 AM./Shot 9.41\u202fAM.png")},
		{"a plain name is one read", in(`"x"`), reads(dir + "/x")},
	}
	runPathCases(t, "cline", cases)
}

// TestClinePatchHeadersAsClineTrimsThem: Cline's patch parser trims a
// header's path with JavaScript's trim(), which takes a byte-order mark
// that Go's and Rust's trims leave, so the hook checks both readings.
func TestClinePatchHeadersAsClineTrimsThem(t *testing.T) {
	patch := func(header string) string {
		b, _ := json.Marshal("*** Begin Patch\n" + header + "\n+x\n*** End Patch")
		return string(b)
	}
	cases := []struct {
		name, client, input string
		want                []Access
	}{
		{"a byte-order mark before a home file", "cline",
			`{"hookName":"tool_call","workspaceRoots":["/w"],"tool_call":{"id":"1","name":"apply_patch","input":{"input":` + patch("*** Add File: \ufeff/h/.bashrc") + `}}}`,
			[]Access{{Op: "write", Path: "/w/\ufeff/h/.bashrc"}, {Op: "write", Path: "/h/.bashrc"}}},
		{"codex's patch too", "codex",
			`{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"apply_patch","tool_input":{"command":` + patch("*** Update File: /h/x\ufeff") + `}}`,
			[]Access{{Op: "write", Path: "/h/x\ufeff"}, {Op: "write", Path: "/h/x"}}},
		{"a next line is no space to JavaScript", "cline",
			`{"hookName":"tool_call","workspaceRoots":["/w"],"tool_call":{"id":"1","name":"apply_patch","input":{"input":` + patch("*** Delete File: /h/x\u0085") + `}}}`,
			[]Access{{Op: "delete", Path: "/h/x"}, {Op: "delete", Path: "/h/x\u0085"}}},
		{"plain spaces are one path", "cline",
			`{"hookName":"tool_call","workspaceRoots":["/w"],"tool_call":{"id":"1","name":"apply_patch","input":{"input":` + patch("*** Add File:  a.txt ") + `}}}`,
			[]Access{{Op: "write", Path: "/w/a.txt"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkPaths(t, tc.client, tc.input, tc.want) })
	}
}

// TestPatchHomePathsAreNamesInTheCwd: no client applying patches expands
// "~" in a patch's path, so "~/x" is checked as the folder "~" in the
// working directory it writes, and as the home file besides.
func TestPatchHomePathsAreNamesInTheCwd(t *testing.T) {
	cases := []struct {
		name, client, input string
		want                []Access
	}{
		{"cline", "cline",
			`{"hookName":"tool_call","workspaceRoots":["/w"],"tool_call":{"id":"1","name":"apply_patch","input":{"input":"*** Begin Patch\n*** Add File: ~/.bashrc\n+x\n*** End Patch"}}}`,
			[]Access{{Op: "write", Path: "/w/~/.bashrc"}, {Op: "write", Path: "~/.bashrc"}}},
		{"codex", "codex",
			`{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Delete File: ~/x\n*** End Patch"}}`,
			[]Access{{Op: "delete", Path: "/w/~/x"}, {Op: "delete", Path: "~/x"}}},
		{"a relative path is one", "codex",
			`{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Delete File: x\n*** End Patch"}}`,
			[]Access{{Op: "delete", Path: "/w/x"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkPaths(t, tc.client, tc.input, tc.want) })
	}
}
