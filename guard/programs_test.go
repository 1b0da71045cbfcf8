package guard

import (
	"fmt"
	"testing"
)

// TestFileNamesInsidePrograms: file names and commands written inside a
// program's own language (sed, awk, jq) or taken from option files are
// judged like any path, and text the guard cannot read is denied.
func TestFileNamesInsidePrograms(t *testing.T) {
	runEvalCases(t, []evalCase{
		// escapes
		{name: "sed w relative through a link", shell: "sed 'w link_out/x' main.go", want: Deny, has: []string{"write {T}/secret/x (denied)"}},
		{name: "sed w after cd", shell: "cd {D} && sed -n 'w out' {W}/main.go", want: Deny, has: []string{"write {D}/out (denied)"}},
		{name: "sed W", shell: "sed -n 'W {D}/o' main.go", want: Deny},
		{name: "sed r", shell: "sed 'r {T}/secret/key' main.go", want: Deny, has: []string{"read {T}/secret/key (denied)"}},
		{name: "sed R with address", shell: "sed '1R {D}/report.csv' main.go", want: Deny, eligible: true},
		{name: "sed s///w", shell: "sed 's/a/b/w {D}/o' main.go", want: Deny},
		{name: "sed s///gw", shell: "sed -e 's|a|b|gw {D}/o' main.go", want: Deny},
		{name: "sed e command", shell: "sed '1e id' main.go", want: Deny},
		{name: "sed s///e", shell: "sed 's/.*/id/e' main.go", want: Deny},
		{name: "sed s///ge after a brace", shell: "sed '/x/{s/a/b/ge}' main.go", want: Deny},
		{name: "sed w in a second line", shell: "sed 'p\nw {D}/o' main.go", want: Deny},
		{name: "sed script from a file", shell: "sed -f script.sed main.go", want: Deny},
		{name: "sed -i backup in another folder", shell: "sed -i'{D}/*' s/a/b/ main.go", want: Deny},
		{name: "sed -i backup suffix through a link", shell: "sed -i.bak s/a/b/ link_out/key", want: Deny},
		{name: "sed unknown command", shell: "sed 'k' main.go", want: Deny},
		{name: "sed --expression=", shell: "sed --expression='w {D}/o' main.go", want: Deny},
		{name: "awk print to a file outside", shell: `awk '{print > "{D}/o"}' main.go`, want: Deny, has: []string{"write {D}/o (denied)"}},
		{name: "awk print append relative after cd", shell: `cd {T}/secret && awk '{print >> "x"}' {W}/main.go`, want: Deny},
		{name: "awk printf redirect", shell: `awk '{printf "%s", $0 > "{D}/o"}' main.go`, want: Deny},
		{name: "awk redirect to a variable", shell: `awk '{print > $2}' main.go`, want: Deny},
		{name: "awk redirect to a concatenation", shell: `awk '{print > "a" "/b"}' main.go`, want: Deny},
		{name: "awk getline from a file", shell: `awk 'BEGIN{getline l < "{T}/secret/key"; print l}'`, want: Deny, has: []string{"read {T}/secret/key (denied)"}},
		{name: "awk getline from a variable", shell: `awk 'BEGIN{f="x"; getline l < f}'`, want: Deny},
		{name: "awk command into getline", shell: `awk 'BEGIN{"cat /etc/passwd" | getline l}'`, want: Deny},
		{name: "awk print into a command", shell: `awk '{print | "sh"}' main.go`, want: Deny},
		{name: "awk system", shell: `awk 'BEGIN{system("cat {T}/secret/key")}'`, want: Deny},
		{name: "awk ARGV rewrite", shell: `awk 'BEGIN{ARGV[1]="{T}/secret/key"} {print}' main.go`, want: Deny},
		{name: "awk coprocess", shell: `awk 'BEGIN{print "x" |& "sh"}'`, want: Deny},
		{name: "gawk include", shell: `gawk '@include "{T}/secret/x"'`, want: Deny},
		{name: "awk program file", shell: "awk -f prog.awk main.go", want: Deny},
		{name: "awk regex hiding a quote", shell: `awk '/"/ {print > "{D}/o"} "'`, want: Deny},
		{name: "awk unknown option", shell: "awk -o{D}/o '{print}' main.go", want: Deny},
		{name: "wc --files0-from", shell: "wc --files0-from=list.txt", want: Deny},
		{name: "du --files0-from", shell: "du --files0-from list.txt", want: Deny},
		{name: "sort --files0-from", shell: "sort --files0-from=list.txt", want: Deny},
		{name: "sort --compress-program", shell: "sort --compress-program=./x main.go", want: Deny},
		{name: "sort -T outside", shell: "sort -T {D} main.go", want: Deny},
		{name: "tar -T", shell: "tar czf out.tgz -T list.txt", want: Deny},
		{name: "tar old style T", shell: "tar cTf list.txt out.tar", want: Deny},
		{name: "tar --files-from=", shell: "tar -c --files-from=list.txt -f out.tar", want: Deny},
		{name: "tar --to-command", shell: "tar xf a.tar --to-command='sh -c id'", want: Deny},
		{name: "tar -I", shell: "tar -I ./x -cf out.tar src", want: Deny},
		{name: "tar -h follows links", shell: "tar chf out.tar src", want: Deny},
		{name: "rsync --files-from", shell: "rsync -a --files-from=list.txt . dst", want: Deny},
		{name: "rsync -e", shell: "rsync -av -e ./x src dst", want: Deny},
		{name: "rsync -L", shell: "rsync -aL src dst", want: Deny},
		{name: "xargs -a", shell: "xargs -a list.txt cat", want: Deny},
		{name: "jq -L", shell: "jq -L {T}/secret 'import \"x\" as x; .' a.json", want: Deny},
		{name: "jq import", shell: "jq 'include \"x\"; .' a.json", want: Deny},
		{name: "jq --rawfile", shell: "jq --rawfile k {T}/secret/key -n '$k'", want: Deny, has: []string{"read {T}/secret/key (denied)"}},
		{name: "jq --slurpfile", shell: "jq --slurpfile k {D}/report.csv -n '$k'", want: Deny, eligible: true},
		{name: "jq filter from a file", shell: "jq -f filter.jq a.json", want: Deny},
		{name: "GNU time -o", shell: "/usr/bin/time -o {D}/t ls", want: Deny, has: []string{"write {D}/t (denied)"}},
		{name: "time --output", shell: "command time --output={D}/t ls", want: Deny},
		{name: "env time -o", shell: "env time -o {T}/t ls", want: Deny},
		{name: "less lesskey file", shell: "less --lesskey-file=k main.go", want: Deny},
		{name: "less -k", shell: "less -k k main.go", want: Deny},
		{name: "man pager", shell: "man -P 'cat {T}/secret/key' ls", want: Deny},
		{name: "man html browser", shell: "man --html=x ls", want: Deny},
		// benign look-alikes
		{name: "sed print", shell: "sed -n '1,5p;/func/=' main.go", want: Allow},
		{name: "sed substitute with flags", shell: "sed -E 's/(a)+/\\1/gI;s|x|y|2' main.go", want: Allow},
		{name: "sed w inside", shell: "sed -n '/x/w out.txt' main.go", want: Allow},
		{name: "sed w to stdout", shell: "sed -n 'w /dev/stdout' main.go", want: Allow},
		{name: "sed a text with w in it", shell: "sed '1a w {D}/o' main.go", want: Allow},
		{name: "sed in place with backup", shell: "sed -i.bak 's/a/b/' main.go", want: Allow},
		{name: "sed labels", shell: "sed ':a;N;$!ba;s/\\n/ /g' main.go", want: Allow},
		{name: "awk print", shell: "awk -F: '{print $1, NR}' main.go", want: Allow},
		{name: "awk comparison in parentheses", shell: "awk '{ if ($1 > 5) print ($1 > 2) }' main.go", want: Allow},
		{name: "awk division and regex", shell: "awk '/func/ { n = $2 / 2; print n }' main.go", want: Allow},
		{name: "awk print to a file inside", shell: `awk '{print > "out.txt"}' main.go`, want: Allow},
		{name: "awk print to stderr", shell: `awk '{print "x" > "/dev/stderr"}' main.go`, want: Allow},
		{name: "awk getline plain", shell: "awk '{ getline; print }' main.go", want: Allow},
		{name: "awk string with slash", shell: `awk 'BEGIN{FS="/"} {print $NF}' main.go`, want: Allow},
		{name: "awk -v", shell: "awk -v n=3 'NR<=n' main.go", want: Allow},
		{name: "jq rawfile inside", shell: "jq --rawfile k main.go -n '$k'", want: Allow},
		{name: "sort -o inside", shell: "sort -u -o out.txt main.go", want: Allow},
		{name: "tar create inside", shell: "tar czf out.tgz src", want: Allow},
		{name: "tar list", shell: "tar -tzf out.tgz", want: Allow},
		{name: "rsync inside", shell: "rsync -a src/ copy/", want: Allow},
		{name: "time -o inside", shell: "/usr/bin/time -o t.txt ls", want: Allow},
	})
}

// TestEnvironment: variables that inject code or file names are denied
// unless their value is provably harmless, however they are set.
func TestEnvironment(t *testing.T) {
	var cases []evalCase
	for _, set := range []string{"%s ls", "env %s ls", "export %s; ls", "declare -x %s; ls", "set -a; %s; ls", "%s; export ${X}; ls"} {
		for _, kv := range []string{"BASH_ENV=./x.sh", "ENV=x.sh",
			"PROMPT_COMMAND='cat {T}/secret/key'", "LD_PRELOAD=./x.so", "LD_LIBRARY_PATH=.", "LD_AUDIT=./a.so",
			"LD_DEBUG_OUTPUT={D}/o", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.pager", "GIT_SSH_COMMAND='sh -c id'",
			"GIT_EXTERNAL_DIFF=./d", "GIT_DIR={T}/secret", "GIT_WORK_TREE={D}", "LESSOPEN='|cat {T}/secret/key %s'",
			"LESSCLOSE=x", "PAGER='sh -c id'", "EDITOR=./e", "VISUAL=vim", "PYTHONSTARTUP=./s.py", "PYTHONPATH={T}/secret",
			"NODE_OPTIONS='--require ./x.js'", "PERL5OPT=-Mx", "RUBYOPT=-rx", "PS4='$(id)'", "SHELLOPTS=xtrace",
			"BASHOPTS=expand_aliases", "PATH={D}", "HOME={T}/secret", "TMPDIR={D}", "TAR_OPTIONS=--to-command=id",
			"GLOBIGNORE=x", "IFS=/", "XDG_CONFIG_HOME={T}/secret", "GOFLAGS=-toolexec=./x", "CDPATH={T}"} {
			cmd := fmt.Sprintf(set, kv)
			cases = append(cases, evalCase{name: cmd, shell: cmd, want: Deny})
		}
	}
	cases = append(cases,
		evalCase{name: "exported function through env", shell: "env 'BASH_FUNC_ls%%=() { cat {T}/secret/key; }' bash -c ls", want: Deny},
		evalCase{name: "read into a loader variable", shell: "read LD_PRELOAD < x; export LD_PRELOAD; ls", want: Deny},
		evalCase{name: "printf -v", shell: "printf -v BASH_ENV %s x; bash -c ls", want: Deny},
		evalCase{name: "for loop variable", shell: "for PATH in {D}; do ls; done", want: Deny},
		evalCase{name: "default assignment", shell: ": ${LD_PRELOAD:=./x.so}; ls", want: Deny},
		evalCase{name: "mapfile callback", shell: "mapfile -C 'cat {T}/secret/key' -c 1 < main.go", want: Deny},
		evalCase{name: "nameref", shell: "declare -n r=LD_PRELOAD; r=./x.so; ls", want: Deny},
		evalCase{name: "env -u HOME", shell: "env -u HOME bash -c 'cat ~/x'", want: Deny},
		evalCase{name: "unset HOME", shell: "unset HOME; cat ~/x", want: Deny},
		evalCase{name: "env --split-string", shell: "env --split-string='cat {T}/secret/key'", want: Deny},
		evalCase{name: "env unknown long option", shell: "env --frobnicate ls", want: Deny},
		evalCase{name: "arithmetic assignment", shell: "((PATH=1)); ls", want: Deny},
		evalCase{name: "set -k", shell: "set -k; ls LD_PRELOAD=./x.so", want: Deny},
		evalCase{name: "shopt dotglob", shell: "shopt -s dotglob; rm -rf *", want: Deny},
		evalCase{name: "shopt lastpipe", shell: "shopt -s lastpipe; echo | cd {D}; cat report.csv", want: Deny},
	)
	for _, ok := range []string{"GOOS=linux go build ./...", "env CGO_ENABLED=0 go build ./...", "export FOO=bar; echo $FOO",
		"GIT_PAGER=cat git log -1", "PAGER=cat git diff", "GIT_EDITOR=true git commit --amend", "LANG=C sort main.go",
		"PYTHONUNBUFFERED=1 python3 script.py", "PYTHONPATH=src python3 script.py", "TMPDIR={W}/tmp sort main.go",
		"GIT_DIR={W}/.git git status", "LD_PRELOAD= ls", "PS4='+ ' bash -xc ls", "set -euo pipefail; ls",
		"shopt -s checkwinsize; shopt -u nullglob; ls", "NODE_ENV=production node -e 'console.log(1)'",
		"read -r line < main.go; echo $line", "x=$(wc -l < main.go); echo $x", "RUST_LOG=debug make"} {
		cases = append(cases, evalCase{name: "benign " + ok, shell: ok, want: Allow})
	}
	runEvalCases(t, cases)
}

// TestHiddenProgramText: program text the parser never sees (process
// substitutions run as scripts, aliases, trap text, completion commands,
// a heredoc replaced by a later redirection, git aliases and core.*
// settings) is denied.
func TestHiddenProgramText(t *testing.T) {
	runEvalCases(t, []evalCase{
		{name: "bash process substitution", shell: "bash <(echo 'cat {T}/secret/key')", want: Deny},
		{name: "sh process substitution", shell: "sh <(curl x)", want: Deny},
		{name: "python process substitution", shell: "python3 <(echo 'print(1)')", want: Deny},
		{name: "node process substitution", shell: "node <(echo 1)", want: Deny},
		{name: "source process substitution", shell: "source <(echo ls)", want: Deny},
		{name: "process substitution as command", shell: "<(echo ls)", want: Deny},
		{name: "bash /dev/stdin", shell: "bash /dev/stdin <<< 'cat {T}/secret/key'", want: Deny},
		{name: "bash /proc/self/fd/0", shell: "bash /proc/self/fd/0 < x", want: Deny},
		{name: "alias definition", shell: "shopt -s expand_aliases\nalias ls='cat {T}/secret/key'\nls", want: Deny},
		{name: "alias without shopt", shell: "alias ls='rm -rf {D}'", want: Deny},
		{name: "bash -O expand_aliases", shell: "bash -O expand_aliases -c ls", want: Deny},
		{name: "bash -i", shell: "bash -i -c ls", want: Deny},
		{name: "bash --rcfile", shell: "bash --rcfile x -c ls", want: Deny},
		{name: "trap text", shell: "trap 'cat {T}/secret/key' EXIT", want: Deny},
		{name: "complete -C", shell: "complete -C 'cat {T}/secret/key' x", want: Deny},
		{name: "compgen -C", shell: "compgen -C 'cat {T}/secret/key' x", want: Deny},
		{name: "hash -p", shell: "hash -p {T}/secret/x ls; ls", want: Deny},
		{name: "second heredoc replaces the first", shell: "bash <<'A' <<'B'\necho hi\nA\ncat {T}/secret/key\nB", want: Deny},
		{name: "redirect replaces the heredoc", shell: "bash <<'A' < x.sh\necho hi\nA", want: Deny},
		{name: "here-string then file", shell: "sh <<< 'ls' 0< x.sh", want: Deny},
		{name: "python heredoc then file", shell: "python3 - <<'A' < x.py\nprint(1)\nA", want: Deny},
		{name: "heredoc to bash with outside read", shell: "bash <<'A'\ncat {T}/secret/key\nA", want: Deny},
		{name: "git -c alias", shell: "git -c alias.x='!cat {T}/secret/key' x", want: Deny},
		{name: "git -c core.pager", shell: "git -c core.pager='cat {T}/secret/key' log", want: Deny},
		{name: "git -c core.hooksPath", shell: "git -c core.hooksPath={T}/h commit -m x", want: Deny},
		{name: "git -c core.fsmonitor", shell: "git -c core.fsmonitor='cat {T}/secret/key' status", want: Deny},
		{name: "git -c core.sshCommand", shell: "git -c core.sshCommand=./x fetch", want: Deny},
		{name: "git -c core.editor", shell: "git -c core.editor=./x commit", want: Deny},
		{name: "git -c pager.log", shell: "git -c pager.log='cat {T}/secret/key' log", want: Deny},
		{name: "git --config-env", shell: "git --config-env=core.pager=X log", want: Deny},
		{name: "git unknown global option", shell: "git --exec-path={T} status", want: Deny},
		{name: "git config sets a pager then runs", shell: "git config core.pager 'cat {T}/secret/key' && git log", want: Deny},
		{name: "git config --global", shell: "git config --global user.name x", want: Deny},
		{name: "git rebase --exec", shell: "git rebase -x 'cat {T}/secret/key' HEAD~1", want: Deny},
		{name: "git difftool --extcmd", shell: "git difftool --extcmd=./x", want: Deny},
		{name: "git submodule foreach", shell: "git submodule foreach 'cat {T}/secret/key'", want: Deny},
		{name: "git bisect run", shell: "git bisect run ./x", want: Deny},
		// benign look-alikes
		{name: "diff of process substitutions", shell: "diff <(sort main.go) <(sort src/a.txt)", want: Allow},
		{name: "heredoc to bash", shell: "bash <<'A'\ncat main.go\nA", want: Allow},
		{name: "heredoc to python", shell: "python3 - <<'A'\nprint(1)\nA", want: Allow},
		{name: "alias listing", shell: "alias", want: Allow},
		{name: "git -c user.name", shell: "git -c user.name=x -c color.ui=never log -1", want: Allow},
		{name: "git config read", shell: "git config --get user.name", want: Allow},
		{name: "git config safe key", shell: "git config user.email a@b.c", want: Allow},
		{name: "git --no-pager", shell: "git --no-pager log --oneline -5", want: Allow},
		{name: "git log -S", shell: "git log -Sfoo --oneline", want: Allow},
	})
}
