package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is a small home directory with a workspace, a Downloads folder
// and a Documents folder (both eligible), credential and configuration
// folders that are never eligible (one of them listed as eligible all the
// same), a secret outside them all, and symlinks that try to escape.
type fixture struct {
	T, H, W, D, R string
	policy        *Compiled
	expand        *strings.Replacer
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{T: root, H: root + "/home/u"}
	f.W, f.D, f.R = f.H+"/work", f.H+"/Downloads", root+"/ref"
	files := []string{
		"{W}/main.go", "{W}/src/a.txt", "{W}/my file.txt", "{W}/script.py", "{W}/build.sh",
		"{W}/.claude/settings.json", "{W}/vendor/lib.go", "{W}/sub/x.txt", "{W}/src/deep/f",
		"{D}/report.csv", "{D}/a.csv", "{D}/b.csv", "{D}/space name.csv", "{D}/data/x.csv",
		"{D}/run.sh", "{T}/secret/key", "{T}/secret/sub/inner", "{R}/doc.md",
		"{H}/Documents/spec.pdf", "{H}/Documents/reports/q1.csv", "{H}/.ssh/id_rsa", "{H}/.config/x", "{H}/.config/shared/notes.txt",
		"{H}/Pictures/cat.png", "{H}/Pictures/vault/k",
	}
	f.expand = strings.NewReplacer("{T}", f.T, "{H}", f.H, "{W}", f.W, "{D}", f.D, "{R}", f.R)
	for _, name := range files {
		p := f.path(name)
		mustMkdir(t, filepath.Dir(p))
		if err := os.WriteFile(p, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"{W}/link_out":    "{T}/secret",     // workspace link leading outside
		"{W}/link_sub":    "{T}/secret/sub", // for kernel-style `..` after a link
		"{W}/link_deep":   "{W}/src/deep",   // `..` after it: inside to the kernel, outside lexically
		"{D}/data/escape": "{T}/secret/key", // inside an approved folder, leading out
		"{W}/loop":        "{W}/loop",
		"{W}/devnull":     "/dev/null",
	}
	for link, target := range links {
		if err := os.Symlink(f.path(target), f.path(link)); err != nil {
			t.Fatal(err)
		}
	}
	p := Policy{
		SessionPolicy: SessionPolicy{Cwd: f.W, Workspace: []string{f.W}, ReadOnly: []string{f.R},
			BlockedWrite: []string{f.W + "/vendor"}},
		DevicePolicy: DevicePolicy{EligibleReadOnly: []string{"~/Downloads", "~/Documents", "~/.config/shared", "~/Pictures"},
			Protected:     []string{f.W + "/.claude/settings.json", f.W + "/.gemini/settings.json", f.T + "/state"},
			NeverEligible: []string{"~/.ssh", "~/.config", "~/Pictures/vault"}},
	}
	f.policy, err = p.Compile(f.H)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) path(s string) string { return f.expand.Replace(s) }

// grants builds a grant set from "op:path" specs, folder when the path is a
// directory.
func (f *fixture) grants(t testing.TB, specs ...string) *GrantSet {
	t.Helper()
	set := NewGrantSet()
	for i, spec := range specs {
		op, p, _ := strings.Cut(f.path(spec), ":")
		kind := KindFile
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			kind = KindFolder
		}
		set.Add(Grant{ID: "g" + string(rune('1'+i)), Op: Op(op), Path: p, Kind: kind})
	}
	return set
}

func mustMkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}
