package layers

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixed are the layer rules that hold whatever the table says: editing a
// row cannot open them. A package under from (a folder prefix, "" for
// all) may not import one under to ("" for any pathgrant package).
var fixed = []struct{ from, to, why string }{
	{"wire", "", "the socket protocol is a stdlib-only leaf every side links"},
	{"sandbox", "ipc", "confinement sits below the daemon's API"},
	{"tools", "ipc", "the tools are run by the daemon, not the other way round"},
	{"hooks", "ipc", "the hook must start fast: nothing of the daemon"},
}

// under reports whether pkg is prefix or lies below it ("" is everything).
func under(prefix, pkg string) bool {
	return prefix == "" || pkg == prefix || strings.HasPrefix(pkg, prefix+"/")
}

// fixedProblems lists every import in g, and every allowance in rows,
// that a fixed rule forbids.
func fixedProblems(rows []row, g graph) []string {
	var probs []string
	for _, f := range fixed {
		for _, pkg := range sortedKeys(g) {
			for _, imp := range g[pkg] {
				if under(f.from, pkg) && under(f.to, imp) {
					probs = append(probs, fmt.Sprintf("package %s imports %s: %s", pkg, imp, f.why))
				}
			}
		}
		for _, r := range rows {
			for _, p := range r.paths {
				for _, a := range r.allow {
					if under(f.from, strings.TrimSuffix(p, "/")) && under(f.to, a) {
						probs = append(probs, fmt.Sprintf("row %s allows %s: %s", r.name(), a, f.why))
					}
				}
			}
		}
	}
	return probs
}

// TestFixedRules holds the real table and graph to the fixed rules.
func TestFixedRules(t *testing.T) {
	root, module := moduleRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parseTable(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	statSources(t, root)
	for _, p := range fixedProblems(rows, listGraph(t, root, module)) {
		t.Error(p)
	}
}

// TestFixedRulesCatch: a forbidden import and a forbidden allowance are
// each caught, through a sub-package too; the clean graph passes.
func TestFixedRulesCatch(t *testing.T) {
	cases := []struct {
		name  string
		rows  []row
		graph graph
		want  string
	}{
		{"clean", []row{{paths: []string{"sandbox/"}, allow: []string{"wire"}}}, graph{"sandbox": {"wire"}}, ""},
		{"wire imports pathgrant", nil, graph{"wire": {"appdirs"}}, "package wire imports appdirs"},
		{"a sandbox sub-package imports ipc", nil, graph{"sandbox/kernel": {"ipc"}}, "package sandbox/kernel imports ipc"},
		{"sandbox imports below ipc", nil, graph{"sandbox": {"ipc/ipctest"}}, "package sandbox imports ipc/ipctest"},
		{"a row lets tools import ipc", []row{{paths: []string{"tools/"}, allow: []string{"ipc"}}}, graph{}, "row `tools/` allows ipc"},
		{"a row lets wire import anything", []row{{paths: []string{"wire/"}, allow: []string{"guard"}}}, graph{}, "row `wire/` allows guard"},
		{"a look-alike is not under", nil, graph{"sandboxes": {"ipc"}, "sandbox": {"ipcx"}}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			probs := fixedProblems(tc.rows, tc.graph)
			got := strings.Join(probs, "\n")
			switch {
			case tc.want == "" && got != "":
				t.Errorf("problems in a clean case:\n%s", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("no problem %q among:\n%s", tc.want, got)
			}
		})
	}
}
