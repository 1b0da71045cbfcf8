package guard

import "testing"

// TestLinksMadeInTheLine: a link made earlier in the line is followed by
// every later word that passes through it, and a link to a place the
// session may not read is itself an access to it.
func TestLinksMadeInTheLine(t *testing.T) {
	grantReport := []string{"read:{D}/report.csv"}
	runEvalCases(t, []evalCase{
		// escapes
		{name: "symlink to a secret then cat", shell: "ln -s {T}/secret s && cat s/key", want: Deny, has: []string{"read {T}/secret/key (denied)"}},
		{name: "symlink to a secret, semicolon", shell: "ln -s {T}/secret s; cat s/key", want: Deny},
		{name: "symlink alone is an access", shell: "ln -s {T}/secret/key k", want: Deny, has: []string{"read {T}/secret/key (denied)"}},
		{name: "relative symlink climbing out", shell: "ln -s ../../../secret s && cat s/key", want: Deny},
		{name: "symlink then write through it", shell: "ln -sf {R} r && echo x > r/doc.md", want: Deny, has: []string{"write {R}/doc.md (denied)"}},
		{name: "symlink over the protected settings folder", shell: "ln -s {T}/secret .claude2 && cp .claude2/key .", want: Deny},
		{name: "symlink then redirect into it", shell: "ln -s {T}/secret/key k; cat < k", want: Deny},
		{name: "symlink into downloads then read", shell: "ln -s {D} dl && cat dl/report.csv", want: Deny, eligible: true},
		{name: "symlink in a subshell then read", shell: "(ln -s {T}/secret s); cat s/key", want: Deny},
		{name: "symlink by -t", shell: "ln -s -t sub {T}/secret && cat sub/secret/key", want: Deny},
		{name: "symlink with target-directory long form", shell: "ln --symbolic --target-directory=sub {T}/secret && cat sub/secret/key", want: Deny},
		{name: "symlink into an existing folder", shell: "ln -s {T}/secret sub && cat sub/secret/key", want: Deny},
		{name: "symlink one operand", shell: "ln -s {T}/secret && cat secret/key", want: Deny},
		{name: "symlink chain", shell: "ln -s {T} a && ln -s a/secret b && cat b/key", want: Deny},
		{name: "symlink then glob", shell: "ln -s {T}/secret/key k && cat k*", want: Deny},
		{name: "symlink then cd through it", shell: "ln -s {T}/secret s && cd s && cat key", want: Deny},
		{name: "symlink then recursive grep follows it", shell: "mkdir d && ln -s {T}/secret d/s && grep -R x d", want: Deny},
		{name: "cp -s makes a link", shell: "cp -s {T}/secret/key k && cat k", want: Deny},
		{name: "cp --symbolic-link", shell: "cp --symbolic-link {T}/secret/key k", want: Deny},
		{name: "hard link to a read-only file is a write to it", shell: "ln {R}/doc.md d.md", want: Deny, has: []string{"write {R}/doc.md (denied)"}},
		{name: "hard link to a granted file is a write", shell: "ln {D}/report.csv r.csv", grants: grantReport, want: Deny},
		{name: "link command", shell: "link {R}/doc.md d.md", want: Deny},
		{name: "cp -l is a hard link", shell: "cp -l {R}/doc.md d.md", want: Deny, has: []string{"write {R}/doc.md (denied)"}},
		{name: "cp --link recursive", shell: "cp -r --link {R} rr", want: Deny},
		{name: "hard link of a workspace symlink copies the link", shell: "ln link_out lo && cat lo/key", want: Deny},
		{name: "renaming a link keeps it a link", shell: "mv link_out x && cat x/key", want: Deny},
		{name: "renaming a made link", shell: "ln -s {T}/secret a && mv a b && cat b/key", want: Deny},
		{name: "moving a relative link changes its target", shell: "mkdir -p p/q && ln -s ../../secret p/q/l && mv p/q/l ../l2", want: Deny},
		{name: "moving a folder holding a link", shell: "mkdir d && ln -s {T}/secret d/s && mv d e && cat e/s/key", want: Deny},
		{name: "copying a folder holding a link", shell: "mkdir d && ln -s {T}/secret d/s && cp -r d e && cat e/s/key", want: Deny},
		{name: "cp -a of a link", shell: "cp -a link_out lo && cat lo/key", want: Deny},
		{name: "cp -P of a link", shell: "cp -P link_out lo", want: Deny},
		{name: "link over a protected path", shell: "ln -s {T}/secret .gemini", want: Deny},
		{name: "link made inside bash -c", shell: "bash -c 'ln -s {T}/secret s && cat s/key'", want: Deny},
		{name: "link replaced by another", shell: "ln -s src a && ln -sfn {T}/secret a && cat a/key", want: Deny},
		{name: "proc self cwd link", shell: "ln -s /proc/self/cwd c && cat c/main.go", want: Allow},
		// benign look-alikes
		{name: "link inside the workspace", shell: "ln -s src s && cat s/a.txt", want: Allow},
		{name: "relative link inside", shell: "mkdir -p x && ln -s ../src x/s && cat x/s/a.txt", want: Allow},
		{name: "hard link inside", shell: "ln main.go m.go && cat m.go", want: Allow},
		{name: "link to the read-only root", shell: "ln -s {R} ref && cat ref/doc.md", want: Allow},
		{name: "link to a granted file", shell: "ln -s {D}/report.csv r.csv && wc -l r.csv", grants: grantReport, want: Allow},
		{name: "mv a file then read it", shell: "mv main.go m.go && cat m.go", want: Allow},
		{name: "cp -r a folder then read", shell: "cp -r src s2 && cat s2/a.txt", want: Allow},
		{name: "removed link replaced by a folder", shell: "rm link_out && mkdir link_out && touch link_out/f", want: Allow},
	})
}
