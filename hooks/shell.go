package hooks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A rewritten command is POSIX shell text (ExecWrap): assignments, then
// the command in single quotes, each quote in it written '\''. The client
// hands that text to its own shell, and a shell of another syntax reads
// the quotes otherwise: to fish \' inside quotes is a quote, to
// PowerShell and rc a backslash escapes nothing, so the model's command
// comes out of its quotes and part of it runs outside the confinement;
// tcsh and the like fail on the assignments. So the hook works out the
// shell the client would use, as the client itself does on Linux, and
// refuses the call where that shell is not one of posixShells.

// posixShells are the shells known to read the wrapper as written (the
// same list as OpenCode's plugin).
var posixShells = []string{"bash", "dash", "ksh", "sh", "zsh"}

// shellPick is how a client picks the shell its shell tool runs a
// command with on Linux: a column of the client table, each value
// following the client's shipped code.
type shellPick int

const (
	// shellNone: the hook does not rewrite this client's commands.
	shellNone shellPick = iota
	// shellBash: always bash, whatever $SHELL says. Gemini CLI 0.61.0
	// (getShellConfiguration: {executable: "bash", argsPrefix: ["-c"]}
	// off Windows), Factory Droid 0.225.2 (spawn with shell: "bash"),
	// Cline 3.0.65 (getDefaultShell: "/bin/bash" off Windows).
	shellBash
	// shellClaude: Claude Code 2.1.328 takes the first of
	// CLAUDE_CODE_SHELL and $SHELL whose text contains "bash" or "zsh"
	// and that it can run, else a zsh or bash it finds.
	shellClaude
	// shellCodex: Codex 0.169.0 takes the login shell of the password
	// database (not $SHELL) when its name is zsh, bash, sh, pwsh,
	// powershell or cmd (or that with an extension), else bash or zsh;
	// and exec_command's shell argument, which the model writes and the
	// hook's input leaves out, names one of those types, which Codex
	// finds as that login shell or on its PATH (pwsh also as
	// /usr/local/bin/pwsh), else /bin/sh.
	shellCodex
	// shellPi: Pi 0.73.1 takes "shellPath" from its settings (the
	// project's .pi/settings.json over the agent folder's) as it is,
	// else /bin/bash.
	shellPi
	// shellCopilot: GitHub Copilot CLI 1.0.102 takes COPILOT_BASH_PATH
	// as it is, else a bash it finds.
	shellCopilot
	// shellPlugin: OpenCode's plugin refuses a shell that cannot read
	// the wrapper itself, from OpenCode's config the hook does not see.
	shellPlugin
)

// shellHost is what a client's choice of shell depends on besides its
// row: the hook's environment (the client's own, the hook being its
// child), files, and which programs can run.
type shellHost struct {
	getenv   func(string) string
	readFile func(string) ([]byte, error)
	canRun   func(string) bool
	uid      int
}

// localHost is this machine, seen with the hook's environment.
func localHost(getenv func(string) string) shellHost {
	return shellHost{getenv: getenv, readFile: os.ReadFile, uid: os.Getuid(), canRun: canRun}
}

// canRun reports whether p is a regular file this user may execute.
func canRun(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && syscall.Access(p, xOK) == nil
}

// lookPath returns the first program called name in a folder of h's
// $PATH, as Codex's which does, or "".
func lookPath(h shellHost, name string) string {
	for _, dir := range filepath.SplitList(h.getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, name); h.canRun(p) {
			return p
		}
	}
	return ""
}

// xOK is access(2)'s X_OK, which syscall does not name.
const xOK = 1

// clientShell returns a shell the client may run the command with and
// where that choice comes from: the first found that is not one of
// posixShells where the client may pick one of those, else the one it
// picks; "" where that is bash or another of posixShells by the client's
// own code whatever the machine says.
func clientShell(pick shellPick, h shellHost, cwd string) (shell, from string) {
	switch pick {
	case shellClaude:
		for _, name := range []string{"CLAUDE_CODE_SHELL", "SHELL"} {
			v := h.getenv(name)
			// Claude Code tries a relative name through `NAME --version`,
			// so it may be taken whether or not it is here.
			if (strings.Contains(v, "bash") || strings.Contains(v, "zsh")) && (!filepath.IsAbs(v) || h.canRun(v)) {
				return v, name
			}
		}
	case shellCodex:
		if login := loginShell(h); codexKnowsShell(login) && !readsWrapper(login) {
			return login, "the login shell"
		}
		const named = "the model may name it in exec_command's shell argument, which the hook's input leaves out"
		for _, name := range []string{"pwsh", "powershell", "cmd"} {
			if p := lookPath(h, name); p != "" {
				return p, named
			}
		}
		if h.canRun("/usr/local/bin/pwsh") {
			return "/usr/local/bin/pwsh", named
		}
	case shellPi:
		if p := piShellPath(h, cwd); p != "" {
			return p, `"shellPath" in Pi's settings`
		}
	case shellCopilot:
		if v := h.getenv("COPILOT_BASH_PATH"); v != "" {
			return v, "COPILOT_BASH_PATH"
		}
	}
	return "", ""
}

// readsWrapper reports whether shell (a path or a name) is one of
// posixShells.
func readsWrapper(shell string) bool {
	for _, s := range posixShells {
		if filepath.Base(shell) == s {
			return true
		}
	}
	return false
}

// shellRemedy says, per pick, how the person makes the client use bash.
var shellRemedy = map[shellPick]string{
	shellClaude:  "set CLAUDE_CODE_SHELL to bash's or zsh's path",
	shellCodex:   "make bash, zsh or sh the login shell (chsh -s /bin/bash) and keep pwsh, powershell and cmd off Codex's PATH",
	shellPi:      `set "shellPath" in Pi's settings.json to bash's path, or remove it`,
	shellCopilot: "point COPILOT_BASH_PATH at bash, or unset it",
}

// shellRefusal is the reason to refuse a command the client would run
// with a shell that cannot read the wrapper, or "".
func shellRefusal(client Client, h shellHost, cwd string) string {
	shell, from := clientShell(client.shell, h, cwd)
	if shell == "" || readsWrapper(shell) {
		return ""
	}
	return "pathgrant: " + client.Title + " may run this command with " + strconv.Quote(shell) + " (" + from +
		"), a shell that does not read pathgrant's confined command as written (bash, dash, ksh, sh and zsh do; " +
		shellRemedy[client.shell] + "): denied"
}

// loginShell is the shell field of the password database's first entry
// for h's user, as musl's getpwuid_r reads /etc/passwd, or "".
func loginShell(h shellHost) string {
	data, err := h.readFile("/etc/passwd")
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Split(sc.Text(), ":")
		if len(f) == 7 && f[2] == strconv.Itoa(h.uid) {
			return f[6]
		}
	}
	return ""
}

// codexKnowsShell reports whether Codex's detect_shell_type gives login
// a type, so that Codex runs it rather than falling back to bash: its
// text is one of Codex's names, or its file stem is, tried again.
func codexKnowsShell(login string) bool {
	for p := login; ; {
		switch p {
		case "zsh", "sh", "cmd", "bash", "pwsh", "powershell":
			return true
		}
		stem := fileStem(p)
		if stem == "" || stem == p {
			return false
		}
		p = stem
	}
}

// fileStem is Rust's Path::file_stem: the last component without its
// last extension ("" for none, a leading dot being no extension).
func fileStem(p string) string {
	name := filepath.Base(strings.TrimRight(p, "/"))
	if strings.TrimRight(p, "/") == "" || name == ".." {
		return ""
	}
	if i := strings.LastIndex(name, "."); i > 0 {
		return name[:i]
	}
	return name
}

// piShellPath is Pi's "shellPath" setting: the project's
// (CWD/.pi/settings.json) where it has the key, else the agent folder's
// ($PI_CODING_AGENT_DIR, "~/" expanded, or ~/.pi/agent), "" when none is
// a string. A file Pi cannot parse counts as empty, as Pi takes it.
func piShellPath(h shellHost, cwd string) string {
	dir := h.getenv("PI_CODING_AGENT_DIR")
	switch {
	case dir == "~":
		dir = h.getenv("HOME")
	case strings.HasPrefix(dir, "~/"):
		dir = h.getenv("HOME") + dir[1:]
	case dir == "":
		dir = filepath.Join(h.getenv("HOME"), ".pi", "agent")
	}
	raw, ok := settingsKey(h, filepath.Join(cwd, ".pi", "settings.json"), "shellPath")
	if !ok {
		raw, _ = settingsKey(h, filepath.Join(dir, "settings.json"), "shellPath")
	}
	var p string
	if json.Unmarshal(raw, &p) != nil {
		return ""
	}
	return p
}

// settingsKey returns key's raw value in the JSON object in file, and
// whether the object has it (exactly so spelled: Pi reads keys as they
// are).
func settingsKey(h shellHost, file, key string) (json.RawMessage, bool) {
	data, err := h.readFile(file)
	if err != nil {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return nil, false
	}
	v, ok := obj[key]
	return v, ok
}
