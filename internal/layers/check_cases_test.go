package layers

import (
	"slices"
	"strings"
	"testing"
)

// synthetic is a small table in the form of docs/ARCHITECTURE.md's, top
// layer first.
const synthetic = `# a page

## Layers and what each may import

| path | owns | may import |
|---|---|---|
| ` + "`main.go`" + ` | the command | ` + "`cli`" + ` |
| ` + "`cli/`" + ` | subcommands, a\|b | ` + "`ipc`, `wire`" + `; a library |
| ` + "`ipc/`" + ` | the API | ` + "`wire`" + ` |
| ` + "`ipc/sub/`, `extra/`" + ` | a helper; two paths | ` + "`wire`" + ` |
| ` + "`wire/`" + ` | the protocol | stdlib only |

Prose after the table.
`

// cleanGraph is the graph synthetic describes exactly.
func cleanGraph() graph {
	return graph{"": {"cli"}, "cli": {"ipc", "wire"}, "ipc": {"wire"}, "ipc/sub": {"wire"}, "extra": {}, "wire": {}}
}

// TestParseTable: the rows, their paths and allow-lists, in order.
func TestParseTable(t *testing.T) {
	rows, err := parseTable(synthetic)
	if err != nil {
		t.Fatal(err)
	}
	want := []row{
		{paths: []string{"main.go"}, allow: []string{"cli"}},
		{paths: []string{"cli/"}, allow: []string{"ipc", "wire"}},
		{paths: []string{"ipc/"}, allow: []string{"wire"}},
		{paths: []string{"ipc/sub/", "extra/"}, allow: []string{"wire"}},
		{paths: []string{"wire/"}},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i, r := range rows {
		if !slices.Equal(r.paths, want[i].paths) || !slices.Equal(r.allow, want[i].allow) {
			t.Errorf("row %d: %v may import %v, want %v may import %v", i, r.paths, r.allow, want[i].paths, want[i].allow)
		}
	}
	for _, bad := range []string{"no table here", "## Layers and what each may import\n\n| a | b |\n"} {
		if _, err := parseTable(bad); err == nil {
			t.Errorf("parseTable(%q) gave no error", bad)
		}
	}
}

// TestCheckCatches: each kind of drift between the table and the graph is
// one problem naming it, and the table that matches gives none.
func TestCheckCatches(t *testing.T) {
	cases := []struct {
		name   string
		table  func(string) string
		graph  func(graph)
		exists func(string) bool
		want   string // a problem containing this; "" for none
	}{
		{name: "the table that matches", want: ""},
		{name: "a forbidden import", graph: func(g graph) { g["wire"] = []string{"ipc"} },
			want: "package wire imports ipc, which row `wire/` does not allow"},
		{name: "an import upward through a sub-row", graph: func(g graph) { g["ipc/sub"] = []string{"wire", "cli"} },
			want: "package ipc/sub imports cli, which row `ipc/sub/` does not allow"},
		{name: "a package no row covers", graph: func(g graph) { g["tools"] = []string{} },
			want: "package tools: no row of the table covers it"},
		{name: "a row whose path does not exist", exists: func(p string) bool { return p != "extra/" },
			want: "row `ipc/sub/`: extra/ does not exist"},
		{name: "an allowance of a higher row", table: replace("| `wire` |\n| `ipc/sub/`", "| `wire`, `cli` |\n| `ipc/sub/`"),
			want: "row `ipc/` allows cli, which row `cli/` covers, not below it"},
		{name: "an allowance of its own row", table: replace("`ipc`, `wire`; a", "`ipc`, `wire`, `cli`; a"),
			want: "row `cli/` allows cli, which row `cli/` covers, not below it"},
		{name: "an allowance of no package", table: replace("`ipc`, `wire`; a", "`ipc`, `wire`, `x/sys`; a"),
			want: "row `cli/` allows x/sys, which is no package"},
		{name: "an allowance no package uses", graph: func(g graph) { g["cli"] = []string{"ipc"} },
			want: "row `cli/` allows wire, which none of its packages imports"},
		{name: "the module root uncovered", table: replace("| `main.go` | the command | `cli` |\n", ""),
			want: "package (module root): no row of the table covers it"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := synthetic
			if tc.table != nil {
				doc = tc.table(doc)
			}
			rows, err := parseTable(doc)
			if err != nil {
				t.Fatal(err)
			}
			g := cleanGraph()
			if tc.graph != nil {
				tc.graph(g)
			}
			exists := tc.exists
			if exists == nil {
				exists = func(string) bool { return true }
			}
			probs := check(rows, g, exists)
			switch {
			case tc.want == "" && len(probs) > 0:
				t.Errorf("problems in a matching table:\n%s", strings.Join(probs, "\n"))
			case tc.want != "" && !slices.ContainsFunc(probs, func(p string) bool { return strings.Contains(p, tc.want) }):
				t.Errorf("no problem %q among:\n%s", tc.want, strings.Join(probs, "\n"))
			}
		})
	}
}

// replace returns an edit of the synthetic table; it panics when old is
// not there, so a case cannot silently test the unedited table.
func replace(old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			panic("synthetic table lacks " + old)
		}
		return strings.Replace(s, old, new, 1)
	}
}

// TestCommentProblem: a package with no comment, or one that does not
// open with its name, is caught; a command's comment is free.
func TestCommentProblem(t *testing.T) {
	cases := []struct {
		name, pkg, doc string
		bad            bool
	}{
		{"a good comment", "guard", "Package guard decides.", false},
		{"no comment", "guard", "", true},
		{"another package's name", "guard", "Package grants decides.", true},
		{"a prefix of the name", "guard", "Package guardian decides.", true},
		{"a command's comment", "main", "Command pathgrant-hook is the hook.", false},
		{"a command with none", "main", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := commentProblem(tc.pkg, tc.doc); (got != "") != tc.bad {
				t.Errorf("commentProblem(%q, %q) = %q, want a problem: %v", tc.pkg, tc.doc, got, tc.bad)
			}
		})
	}
}
