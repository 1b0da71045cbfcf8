package hooks

import (
	"reflect"
	"testing"
)

// TestPiPathsAsPiTakesThem: Pi drops one leading "@" from a tool's path
// and reads Unicode spaces as plain ones before resolving it (its
// expandPath), so the hook checks the path Pi opens, not a name inside the
// workspace that Pi never opens.
func TestPiPathsAsPiTakesThem(t *testing.T) {
	cases := []struct {
		name, input string
		want        []Access
	}{
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
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := adapterOf(t, "pi").parse([]byte(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.Accesses {
				c.Accesses[i].Input = searchInput{}
			}
			if !reflect.DeepEqual(c.Accesses, tc.want) {
				t.Errorf("accesses %+v, want %+v", c.Accesses, tc.want)
			}
		})
	}
}
