package guard

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// evalCase is one row of the guard's behaviour table. Paths use the
// fixture's placeholders: {W} workspace, {D} Downloads, {T} outside root,
// {R} read-only root, {H} home.
type evalCase struct {
	name     string
	op       Op
	path     string
	shell    string
	grants   []string
	want     Verdict
	eligible bool
	// accesses that must be present, as "op path" or "op path (denied)".
	has []string
	// suggested scope, as "op path kind", when eligible.
	suggest string
	// reason substring, for denials that must say why.
	reason string
}

func runEvalCases(t *testing.T, cases []evalCase) {
	t.Helper()
	f := newFixture(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := Request{Op: tc.op, Path: f.path(tc.path), Shell: f.path(tc.shell)}
			d, err := Evaluate(f.policy, f.grants(t, tc.grants...), req)
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if d.Verdict != tc.want || d.Eligible != tc.eligible {
				t.Fatalf("got %s eligible=%v (%s), want %s eligible=%v; accesses %+v",
					d.Verdict, d.Eligible, d.Reason, tc.want, tc.eligible, d.Accesses)
			}
			for _, h := range tc.has {
				if !hasAccess(d, f.path(h)) {
					t.Errorf("missing access %q in %+v", f.path(h), d.Accesses)
				}
			}
			checkSuggestion(t, d, f.path(tc.suggest))
			if tc.reason != "" && !strings.Contains(d.Reason, f.path(tc.reason)) {
				t.Errorf("reason %q does not contain %q", d.Reason, f.path(tc.reason))
			}
		})
	}
}

func hasAccess(d Decision, want string) bool {
	return slices.ContainsFunc(d.Accesses, func(a Access) bool {
		s := string(a.Op) + " " + a.Path
		if !a.Allowed {
			s += " (denied)"
		}
		return s == want
	})
}

func checkSuggestion(t *testing.T, d Decision, want string) {
	t.Helper()
	switch {
	case d.Eligible && d.Suggested == nil:
		t.Errorf("eligible decision without a suggested scope")
	case !d.Eligible && d.Suggested != nil:
		t.Errorf("non-eligible decision suggests %+v", d.Suggested)
	case want != "" && d.Suggested != nil:
		got := string(d.Suggested.Op) + " " + d.Suggested.Path + " " + string(d.Suggested.Kind)
		if got != want {
			t.Errorf("suggested %q, want %q", got, want)
		}
	}
}

func TestEvaluatePath(t *testing.T) {
	runEvalCases(t, []evalCase{
		{name: "read in workspace", op: OpRead, path: "{W}/main.go", want: Allow, has: []string{"read {W}/main.go"}},
		{name: "relative read", op: OpRead, path: "src/a.txt", want: Allow, has: []string{"read {W}/src/a.txt"}},
		{name: "write new file under new dirs", op: OpWrite, path: "{W}/new/dir/f", want: Allow},
		{name: "downloads read is eligible", op: OpRead, path: "{D}/report.csv", want: Deny, eligible: true,
			suggest: "read {D}/report.csv file"},
		{name: "tilde downloads read", op: OpRead, path: "~/Downloads/report.csv", want: Deny, eligible: true,
			has: []string{"read {D}/report.csv (denied)"}},
		{name: "downloads write never offered", op: OpWrite, path: "{D}/report.csv", want: Deny, reason: "never offered"},
		{name: "downloads delete never offered", op: OpDelete, path: "{D}/report.csv", want: Deny},
		{name: "downloads move never offered", op: OpMove, path: "{D}/report.csv", want: Deny},
		{name: "downloads execute never offered", op: OpExecute, path: "{D}/run.sh", want: Deny},
		{name: "outside read not eligible", op: OpRead, path: "{T}/secret/key", want: Deny},
		{name: "parent traversal into downloads", op: OpRead, path: "{W}/../Downloads/report.csv", want: Deny,
			eligible: true, has: []string{"read {D}/report.csv (denied)"}},
		{name: "parent traversal out of workspace", op: OpRead, path: "{W}/../../../secret/key", want: Deny},
		{name: "workspace symlink leading out", op: OpRead, path: "{W}/link_out/key", want: Deny,
			has: []string{"read {T}/secret/key (denied)"}},
		{name: "dotdot after link uses the target", op: OpRead, path: "{W}/link_sub/../key", want: Deny},
		{name: "dotdot after a link is judged as the kernel and as Node take it", op: OpRead, path: "{W}/link_deep/../../Downloads/report.csv",
			want: Deny, eligible: true, has: []string{"read {W}/Downloads/report.csv", "read {D}/report.csv (denied)"}},
		{name: "relative dotdot after a link, lexically a key", op: OpRead, path: "link_deep/../../.ssh/id_rsa", want: Deny,
			has: []string{"read {H}/.ssh/id_rsa (denied)"}, reason: "it can never be approved"},
		{name: "write through dotdot after a link", op: OpWrite, path: "link_deep/../../notes.txt", want: Deny,
			has: []string{"write {H}/notes.txt (denied)"}},
		{name: "dotdot with no link before it is one path", op: OpRead, path: "src/deep/../a.txt", want: Allow, has: []string{"read {W}/src/a.txt"}},
		{name: "prefix is not a component", op: OpRead, path: "{H}/workx/f", want: Deny},
		{name: "symlink to dev null", op: OpWrite, path: "{W}/devnull", want: Allow},
		{name: "dev null", op: OpWrite, path: "/dev/null", want: Allow},
		{name: "dev null spelt oddly", op: OpRead, path: "//dev/./null", want: Allow, has: []string{"read /dev/null"}},
		{name: "a device is never executed", op: OpExecute, path: "/dev/null", want: Deny},
		{name: "a device is never deleted", op: OpDelete, path: "/dev/null", want: Deny},
		{name: "protected file in workspace not writable", op: OpWrite, path: "{W}/.claude/settings.json",
			want: Deny, reason: "protected"},
		{name: "protected file readable in workspace", op: OpRead, path: "{W}/.claude/settings.json", want: Allow},
		{name: "blocked write", op: OpWrite, path: "{W}/vendor/lib.go", want: Deny, reason: "blocked-write"},
		{name: "blocked write still readable", op: OpRead, path: "{W}/vendor/lib.go", want: Allow},
		{name: "read-only root read", op: OpRead, path: "{R}/doc.md", want: Allow},
		{name: "read-only root write", op: OpWrite, path: "{R}/doc.md", want: Deny},
		{name: "read-only root execute", op: OpExecute, path: "{R}/doc.md", want: Deny},
		{name: "file grant serves its read", op: OpRead, path: "{D}/report.csv", grants: []string{"read:{D}/report.csv"}, want: Allow},
		{name: "read grant never serves write", op: OpWrite, path: "{D}/report.csv", grants: []string{"read:{D}/report.csv"}, want: Deny},
		{name: "read grant never serves delete", op: OpDelete, path: "{D}/report.csv", grants: []string{"read:{D}/report.csv"}, want: Deny},
		{name: "read grant never serves move", op: OpMove, path: "{D}/report.csv", grants: []string{"read:{D}/report.csv"}, want: Deny},
		{name: "read grant never serves execute", op: OpExecute, path: "{D}/run.sh", grants: []string{"read:{D}/run.sh"}, want: Deny},
		{name: "file grant is not its sibling", op: OpRead, path: "{D}/a.csv", grants: []string{"read:{D}/report.csv"}, want: Deny, eligible: true},
		{name: "folder grant serves below", op: OpRead, path: "{D}/data/x.csv", grants: []string{"read:{D}/data"}, want: Allow},
		{name: "folder grant and a symlink leading out", op: OpRead, path: "{D}/data/escape", grants: []string{"read:{D}/data"}, want: Deny,
			has: []string{"read {T}/secret/key (denied)"}},
		{name: "dotdot back out of a folder grant", op: OpRead, path: "{D}/data/../report.csv", grants: []string{"read:{D}/data"},
			want: Deny, eligible: true},
		{name: "grant never opens a protected path", op: OpWrite, path: "{T}/state/db", grants: []string{"write:{T}/state/db"}, want: Deny, reason: "protected"},
		{name: "documents read is eligible", op: OpRead, path: "~/Documents/spec.pdf", want: Deny, eligible: true,
			suggest: "read {H}/Documents/spec.pdf file", reason: "reading it can be approved"},
		{name: "an eligible root itself is offered", op: OpRead, path: "{H}/Documents", want: Deny, eligible: true},
		{name: "ssh key never eligible", op: OpRead, path: "~/.ssh/id_rsa", want: Deny,
			reason: "never offers for approval: it can never be approved; do not retry"},
		{name: "config never eligible", op: OpRead, path: "~/.config/x", want: Deny, reason: "it can never be approved"},
		{name: "never eligible wins over a listed root", op: OpRead, path: "~/.config/shared/notes.txt", want: Deny,
			reason: "it can never be approved"},
		{name: "no grant opens a never-eligible folder", op: OpRead, path: "~/.ssh/id_rsa", grants: []string{"read:{H}/.ssh"}, want: Deny,
			reason: "it can never be approved"},
		{name: "a read not offered says what the person can do", op: OpRead, path: "{T}/secret/key", want: Deny,
			reason: "not in a folder pathgrant offers for approval; the person can allow it in pathgrant's settings (Audit → Allow…) " +
				"or add its folder to eligible_read_only in policy.toml; do not retry until they say they have"},
	})
}

func TestEvaluateBadInput(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name string
		req  Request
		want error
	}{
		{"empty path", Request{Op: OpRead}, ErrBadPath},
		{"nul in path", Request{Op: OpRead, Path: "/a\x00"}, ErrBadPath},
		{"unknown op", Request{Op: "chmod", Path: "/a"}, ErrBadRequest},
		{"blank shell", Request{Shell: "   "}, ErrBadRequest},
		{"comment only", Request{Shell: "# nothing"}, ErrBadRequest},
		{"unparsable shell", Request{Shell: "cat 'unterminated"}, ErrBadRequest},
		{"nul in shell", Request{Shell: "cat a\x00b"}, ErrBadRequest},
		{"carriage return in shell", Request{Shell: "cat 'a\r\n'"}, ErrBadRequest},
		{"both forms", Request{Op: OpRead, Path: "/a", Shell: "ls"}, ErrBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Evaluate(f.policy, nil, tt.req)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error = %v, want %v", err, tt.want)
			}
		})
	}
}
