package hooks

import (
	"os"
	"path/filepath"
	"reflect"
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
	cases := []struct {
		name, input string
		want        []Access
	}{
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
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := adapterOf(t, "cline").parse([]byte(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Accesses, tc.want) {
				t.Errorf("accesses %+q, want %+q", c.Accesses, tc.want)
			}
		})
	}
}
