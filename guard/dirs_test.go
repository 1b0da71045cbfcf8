package guard

import "testing"

// TestWorkingDirectory: every relative path resolves against the
// directory bash is in at that point: cd (logical and physical), cd -,
// pushd/popd, ~+ and ~-, env -C, subshells, and /proc/self/cwd, which
// means the command's directory, never the guard's.
func TestWorkingDirectory(t *testing.T) {
	runEvalCases(t, []evalCase{
		// escapes
		{name: "cd then relative read", shell: "cd {T}/secret && cat key", want: Deny, has: []string{"read {T}/secret/key (denied)"}},
		{name: "cd .. out of the workspace", shell: "cd .. && cat Downloads/report.csv", want: Deny, eligible: true},
		{name: "logical cd .. through a link", shell: "cd link_sub/.. && cat key", want: Deny},
		{name: "logical parent after cd into a link", shell: "cd link_out && cd .. && ls", want: Deny},
		{name: "cd - back to an outside directory", shell: "cd {T}/secret && cd {W} && cd - && cat key", want: Deny, has: []string{"read {T}/secret/key (denied)"}},
		{name: "cd - after a cd that may fail", shell: "cd {T}/secret; cd {W}; cd - && cat key", want: Deny},
		{name: "~- is the previous directory", shell: "cd {T}/secret && cd {W} && cat ~-/key", want: Deny, has: []string{"read {T}/secret/key (denied)"}},
		{name: "~+ is the current directory", shell: "cd {D} && cat ~+/report.csv", want: Deny, eligible: true},
		{name: "pushd then relative", shell: "pushd {T}/secret && cat key", want: Deny},
		{name: "popd returns to an outside directory", shell: "cd {T}/secret && pushd {W} && popd && cat key", want: Deny, has: []string{"read {T}/secret/key (denied)"}},
		{name: "pushd swap", shell: "cd {T}/secret && pushd {W} && pushd && cat key", want: Deny},
		{name: "pushd rotate", shell: "cd {T}/secret && pushd {W} >/dev/null && pushd +1 && cat key", want: Deny},
		{name: "~1 is a stack entry", shell: "cd {T}/secret && pushd {W} && cat ~1/key", want: Deny},
		{name: "env -C", shell: "env -C {T}/secret cat key", want: Deny},
		{name: "env --chdir", shell: "env --chdir={T}/secret cat key", want: Deny},
		{name: "env --chdir separate", shell: "env --chdir {D} cat report.csv", want: Deny, eligible: true},
		{name: "cd in the last pipe stage may persist", shell: "echo | cd {D}; cat report.csv", want: Deny, eligible: true},
		{name: "cd in an if", shell: "if true; then cd {T}/secret; fi; cat key", want: Deny},
		{name: "cd that may fail", shell: "cd {T}/secret || true; cat key", want: Deny},
		{name: "negated cd", shell: "! cd {T}/secret && true; cat key", want: Deny},
		{name: "proc self cwd", shell: "cd {T}/secret && cat /proc/self/cwd/key", want: Deny, has: []string{"read {T}/secret/key (denied)"}},
		{name: "proc self root", shell: "cat /proc/self/root{T}/secret/key", want: Deny, has: []string{"read {T}/secret/key (denied)"}},
		{name: "proc thread-self cwd", shell: "cd {D} && cat /proc/thread-self/cwd/report.csv", want: Deny, eligible: true},
		{name: "another process's cwd", shell: "cat /proc/1/cwd/x", want: Deny, reason: "cannot prove"},
		{name: "proc self fd", shell: "cat /proc/self/fd/3", want: Deny, reason: "cannot prove"},
		{name: "dev fd above 2", shell: "cat /dev/fd/5", want: Deny, reason: "cannot prove"},
		{name: "proc self environ", shell: "cat /proc/self/environ", want: Deny},
		{name: "link to proc self cwd from elsewhere", shell: "ln -s /proc/self/cwd pc && cd {T}/secret && cat {W}/pc/key", want: Deny, has: []string{"read {T}/secret/key (denied)"}},
		{name: "unknown cd target", shell: "cd $X && cat main.go", want: Deny},
		{name: "cd with CDPATH-like option", shell: "cd -Q src && cat a.txt", want: Deny},
		{name: "dirs -c then pushd swap", shell: "dirs -c; pushd && cat key", want: Allow},
		// benign look-alikes
		{name: "cd into a folder and back", shell: "cd src && cat a.txt && cd .. && ls", want: Allow},
		{name: "cd into a folder and back twice", shell: "cd src && cd .. && cd sub && cat x.txt && cd .. && cat main.go", want: Allow},
		{name: "cd -P and back", shell: "cd -P src && cd .. && cat main.go", want: Allow},
		{name: "cd - back", shell: "cd src && cd - && cat main.go", want: Allow},
		{name: "pushd popd", shell: "pushd src && cat a.txt && popd && cat main.go", want: Allow},
		{name: "subshell cd does not leak", shell: "(cd {D}) ; cat main.go", want: Allow},
		{name: "env -C into a subfolder", shell: "env -C src cat a.txt", want: Allow},
		{name: "proc self cwd inside", shell: "cat /proc/self/cwd/main.go", want: Allow},
		{name: "~+ inside", shell: "cat ~+/main.go", want: Allow},
		{name: "git -C a subfolder", shell: "git -C sub status", want: Allow},
		{name: "cd in a pipe stage", shell: "echo x | (cd src && cat a.txt)", want: Allow},
	})
}
