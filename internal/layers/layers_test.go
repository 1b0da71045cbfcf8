package layers

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pathgrant/internal/buildcheck"
)

// TestLayers holds the import graph of every package (outside tests) to
// the layer table in docs/ARCHITECTURE.md.
func TestLayers(t *testing.T) {
	root, module := moduleRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parseTable(string(doc))
	if err != nil {
		t.Fatalf("docs/ARCHITECTURE.md: %v", err)
	}
	statSources(t, root)
	g := listGraph(t, root, module)
	exists := func(p string) bool {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		return err == nil
	}
	for _, p := range check(rows, g, exists) {
		t.Error("docs/ARCHITECTURE.md: " + p)
	}
}

// TestPackageComments: every package says what it is for in a package
// comment, "Package name …" (a command's may start as it likes).
func TestPackageComments(t *testing.T) {
	root, _ := moduleRoot(t)
	out := goList(t, root, "{{.ImportPath}}\t{{.Name}}\t{{.Doc}}")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			t.Fatalf("go list: odd line %q", line)
		}
		if p := commentProblem(f[1], f[2]); p != "" {
			t.Errorf("%s: %s", f[0], p)
		}
	}
}

// commentProblem says what is wrong with a package's comment, "" if
// nothing.
func commentProblem(name, doc string) string {
	switch {
	case doc == "":
		return "no package comment"
	case name != "main" && !strings.HasPrefix(doc, "Package "+name+" "):
		return fmt.Sprintf("the package comment starts %q, want %q", doc, "Package "+name+" …")
	}
	return ""
}

// moduleRoot is the folder of go.mod and the module's path.
func moduleRoot(t *testing.T) (root, module string) {
	t.Helper()
	out := goList(t, ".", "", "-m", "-f", "{{.Dir}}\t{{.Path}}")
	root, module, ok := strings.Cut(strings.TrimSpace(out), "\t")
	if !ok {
		t.Fatalf("go list -m: %q", out)
	}
	return root, module
}

// listGraph is the module's import graph, outside tests, by package paths
// inside the module.
func listGraph(t *testing.T, root, module string) graph {
	t.Helper()
	g := graph{}
	out := goList(t, root, `{{.ImportPath}} {{join .Imports " "}}`)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		pkg, ok := inModule(f[0], module)
		if !ok {
			t.Fatalf("go list ./... named %s, outside module %s", f[0], module)
		}
		g[pkg] = []string{}
		for _, imp := range f[1:] {
			if rel, ok := inModule(imp, module); ok {
				g[pkg] = append(g[pkg], rel)
			}
		}
	}
	return g
}

// inModule is the path of an import path inside the module ("" for its
// root).
func inModule(importPath, module string) (string, bool) {
	if importPath == module {
		return "", true
	}
	return strings.CutPrefix(importPath, module+"/")
}

// goList runs go list in dir with the template format over ./... (or
// over args when given).
func goList(t *testing.T, dir, format string, args ...string) string {
	t.Helper()
	if len(args) == 0 {
		args = []string{"-f", format, "./..."}
	}
	cmd := exec.Command(buildcheck.GoTool(), append([]string{"list"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// statSources stats every Go file of the module: go list reads them in a
// child process, which go test's cache does not see, so without this a
// cached pass could hide a new import.
func statSources(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != root && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".go"):
			_, err = os.Stat(p)
		}
		return err
	})
	if err != nil {
		t.Fatalf("stat the module's sources: %v", err)
	}
}
