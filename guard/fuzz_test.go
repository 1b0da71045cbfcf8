package guard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzCanonical: canonicalisation never panics, always yields a clean
// absolute path, and for a path that exists agrees with the kernel's view
// (filepath.EvalSymlinks, which follows the same links).
func FuzzCanonical(f *testing.F) {
	fx := newFixture(f)
	c := Canonicalizer{Home: fx.H}
	f.Fuzz(func(t *testing.T, rel string) {
		got, err := c.Canonical(rel, fx.W, true)
		if err != nil {
			return
		}
		if !filepath.IsAbs(got) || filepath.Clean(got) != got {
			t.Fatalf("Canonical(%q) = %q: not clean and absolute", rel, got)
		}
		abs, _ := c.absolute(rel, fx.W)
		if _, statErr := os.Stat(abs); statErr != nil {
			return
		}
		want, err := filepath.EvalSymlinks(abs)
		if err == nil && want != got {
			t.Fatalf("Canonical(%q) = %q, kernel resolves %q", rel, got, want)
		}
	})
}

// FuzzEvaluateShell: shell analysis never panics, and an allow never
// contains an access that the policy plus grants would not allow on its own
// (checked by a deliberately simple reference below), nor an unproven part.
func FuzzEvaluateShell(f *testing.F) {
	fx := newFixture(f)
	grants := fx.grants(f, "read:{D}/report.csv", "read:{D}/data")
	f.Fuzz(func(t *testing.T, cmd string) {
		d, err := Evaluate(fx.policy, grants, Request{Shell: fx.path(cmd)})
		if err != nil {
			return
		}
		checkInvariants(t, fx, grants, d)
	})
}

func checkInvariants(t *testing.T, fx *fixture, grants *GrantSet, d Decision) {
	t.Helper()
	if d.Verdict == Allow && (d.Eligible || d.Suggested != nil) {
		t.Fatalf("allow that is also eligible: %+v", d)
	}
	for _, a := range d.Accesses {
		if d.Verdict == Allow && !referenceAllows(fx, grants, a) {
			t.Fatalf("allowed %s %s (tree=%v), which the policy does not allow", a.Op, a.Path, a.Tree)
		}
		if d.Eligible && !a.Allowed && (a.Op != OpRead || !fx.eligible(a.Path)) {
			t.Fatalf("eligible decision holds a denied %s %s", a.Op, a.Path)
		}
	}
	if s := d.Suggested; s != nil && (s.Op != OpRead || !fx.eligible(s.Path)) {
		t.Fatalf("suggested scope %+v is not a read under Downloads or Documents", s)
	}
}

// eligible reports whether p lies under one of the fixture's eligible
// roots that no never-eligible folder covers: Downloads, Documents, or
// Pictures outside its vault.
func (fx *fixture) eligible(p string) bool {
	return Within(fx.D, p) || Within(fx.H+"/Documents", p) || Within(fx.H+"/Pictures", p) && !Within(fx.H+"/Pictures/vault", p)
}

// referenceAllows restates the policy of the fixture as plainly as possible.
func referenceAllows(fx *fixture, grants *GrantSet, a Access) bool {
	if a.Rule == RuleDevice {
		return deviceFiles[a.Path] || strings.HasPrefix(a.Path, "/dev/")
	}
	prot := []string{fx.W + "/.claude/settings.json", fx.W + "/.gemini/settings.json", fx.T + "/state"}
	protected := slices.ContainsFunc(prot, func(r string) bool { return Within(r, a.Path) })
	blocked := Within(fx.W+"/vendor", a.Path)
	if a.Tree || a.Op == OpMove || a.Op == OpDelete {
		protected = protected || slices.ContainsFunc(prot, func(r string) bool { return Within(a.Path, r) })
		blocked = blocked || Within(a.Path, fx.W+"/vendor")
	}
	if a.Op.Mutates() && (protected || blocked) || a.Op != OpRead && protected {
		return false
	}
	switch {
	case Within(fx.W, a.Path):
		return true
	case a.Op == OpRead && Within(fx.R, a.Path):
		return true
	}
	never := false
	for _, n := range []string{fx.H + "/.ssh", fx.H + "/.config", fx.H + "/Pictures/vault"} {
		never = never || Within(n, a.Path) || a.Tree && Within(a.Path, n)
	}
	return !protected && !never && grants.Lookup(a.Op, a.Path, a.Tree) != ""
}

// FuzzProgramText: sed scripts, awk programs and command lines built
// around them never panic the guard, and an allow never holds an access
// the policy would not allow (so a file named inside the program is
// judged like any other).
func FuzzProgramText(f *testing.F) {
	fx := newFixture(f)
	grants := fx.grants(f, "read:{D}/report.csv")
	forms := []string{"sed -n -e %s main.go", "awk %s main.go", "cd src && sed %s a.txt", "ln -s {T}/secret s; awk %s s/key"}
	f.Fuzz(func(t *testing.T, form uint8, text string) {
		_, _ = parseSed(text)
		_, _ = parseAwk(text)
		cmd := strings.Replace(forms[int(form)%len(forms)], "%s", "'"+strings.ReplaceAll(text, "'", "")+"'", 1)
		d, err := Evaluate(fx.policy, grants, Request{Shell: fx.path(cmd)})
		if err != nil {
			return
		}
		checkInvariants(t, fx, grants, d)
	})
}
