package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestGeminiPathsAsGeminiTakesThem: Gemini CLI drops a leading "@" from
// a file's path unless a file of that name exists, expands no "~",
// replaces a relative file it cannot find with one of that name found
// elsewhere, and globs without regard to case, so the hook checks every
// file and folder Gemini may open.
func TestGeminiPathsAsGeminiTakesThem(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "w")
	for _, d := range []string{"w/src", "Data/pub", "Data/PUB"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w, "src", "a.go"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	q := func(s string) string { return strings.ReplaceAll(s, `"`, `\"`) }
	in := func(tool, args string) string {
		return `{"hook_event_name":"BeforeTool","cwd":"` + q(w) + `","tool_name":"` + tool + `","tool_input":` + args + `}`
	}
	tree := func(p string) Access { return Access{Command: "ls -R -- '" + p + "'"} }
	cases := []struct {
		name, input string
		want        []Access
		err         error
	}{
		{"an @ before an absolute path is also a path in the project folder", in("read_file", `{"file_path":"@/h/.ssh/id_rsa"}`),
			[]Access{{Op: "read", Path: w + "/@/h/.ssh/id_rsa"}, {Op: "read", Path: w + "/h/.ssh/id_rsa"}}, nil},
		{"an @ before a relative path", in("write_file", `{"file_path":"@src/b.go","content":"x"}`),
			[]Access{{Op: "write", Path: w + "/@src/b.go"}, {Op: "write", Path: w + "/src/b.go"}}, nil},
		{"a lone @ is a name", in("read_file", `{"file_path":"@"}`),
			[]Access{{Op: "read", Path: w + "/@"}}, nil},
		{"a home path is a folder named ~ in the project folder", in("read_file", `{"file_path":"~/.netrc"}`),
			[]Access{{Op: "read", Path: w + "/~/.netrc"}}, nil},
		{"a listing of ~", in("list_directory", `{"dir_path":"~"}`),
			[]Access{{Op: "read", Path: w + "/~"}}, nil},
		{"a grep of ~/.ssh", in("grep_search", `{"pattern":"x","dir_path":"~/.ssh"}`),
			[]Access{tree(w + "/~/.ssh")}, nil},
		{"a shell in ~", in("run_shell_command", `{"command":"ls","dir_path":"~"}`),
			[]Access{{Command: "cd -- '" + w + "/~' && ls"}}, nil},
		{"a NUL byte is dropped", in("read_file", `{"file_path":"/h/.ss\u0000h/id_rsa"}`),
			[]Access{{Op: "read", Path: "/h/.ssh/id_rsa"}}, nil},
		{"a replace of a relative file that exists", in("replace", `{"file_path":"src/a.go","old_string":"x","new_string":"y"}`),
			[]Access{{Op: "write", Path: w + "/src/a.go"}}, nil},
		{"a replace of a relative file that is missing is refused", in("replace", `{"file_path":"a.go","old_string":"x","new_string":"y"}`),
			nil, errMalformed},
		{"a replace of a missing file named by an @ is refused", in("replace", `{"file_path":"@/a.go","old_string":"x","new_string":"y"}`),
			nil, errMalformed},
		{"a replace of a missing absolute file is a write of it", in("replace", `{"file_path":"`+q(w)+`/new.go","old_string":"","new_string":"y"}`),
			[]Access{{Op: "write", Path: w + "/new.go"}}, nil},
		{"a glob reads every spelling of its folders", in("glob", `{"pattern":"../data/pub/*"}`),
			[]Access{tree(w + "/../data/pub' '" + dir + "/data/pub"), tree(w + "/../Data/pub' '" + dir + "/Data/pub"), tree(w + "/../Data/PUB' '" + dir + "/Data/PUB")}, nil},
		{"an absolute glob too", in("glob", `{"pattern":"`+q(dir)+`/DATA/Pub/*"}`),
			[]Access{tree(dir + "/DATA/Pub"), tree(dir + "/Data/Pub"), tree(dir + "/Data/PUB"), tree(dir + "/Data/pub")}, nil},
		{"read_many_files too", in("read_many_files", `{"include":["../data/PUB/*.txt"]}`),
			[]Access{tree(w + "/../data/PUB' '" + dir + "/data/PUB"), tree(w + "/../Data/PUB' '" + dir + "/Data/PUB"), tree(w + "/../Data/pub' '" + dir + "/Data/pub")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := adapterOf(t, "gemini").parse([]byte(tc.input))
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.Accesses {
				c.Accesses[i].Input = searchInput{}
			}
			if !reflect.DeepEqual(c.Accesses, tc.want) {
				t.Errorf("accesses %+q, want %+q", c.Accesses, tc.want)
			}
		})
	}
}
