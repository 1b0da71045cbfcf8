package hooks

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"pathgrant/wire"
)

// fakeHost is a machine with env, files (path to content) and the
// programs in runnable, for user 1000.
func fakeHost(env, files map[string]string, runnable ...string) shellHost {
	return shellHost{
		getenv: func(k string) string { return env[k] },
		readFile: func(p string) ([]byte, error) {
			if data, ok := files[p]; ok {
				return []byte(data), nil
			}
			return nil, os.ErrNotExist
		},
		canRun: func(p string) bool {
			for _, r := range runnable {
				if r == p {
					return true
				}
			}
			return false
		},
		uid: 1000,
	}
}

// passwd is an /etc/passwd whose user 1000 has login shell shell.
func passwd(shell string) map[string]string {
	return map[string]string{"/etc/passwd": "root:x:0:0:root:/root:/bin/bash\nme:x:1000:1000::/home/me:" + shell + "\n"}
}

// TestShellRefusal: each client that rewrites commands, with the
// shell its own code would pick on this machine: accepted where that is
// bash, dash, ksh, sh or zsh (or always bash), refused naming the shell
// and the setting otherwise, SHELL unset following the client.
func TestShellRefusal(t *testing.T) {
	const cwd = "/home/me/work"
	tests := []struct {
		name, client string
		host         shellHost
		refuse       string // in the reason; "" for accepted
	}{
		{"claude: no SHELL", "claude", fakeHost(nil, nil), ""},
		{"claude: SHELL fish is passed over for bash or zsh", "claude", fakeHost(map[string]string{"SHELL": "/usr/bin/fish"}, nil, "/usr/bin/fish"), ""},
		{"claude: SHELL pwsh is passed over", "claude", fakeHost(map[string]string{"SHELL": "/usr/bin/pwsh"}, nil, "/usr/bin/pwsh"), ""},
		{"claude: SHELL zsh", "claude", fakeHost(map[string]string{"SHELL": "/usr/bin/zsh"}, nil, "/usr/bin/zsh"), ""},
		{"claude: CLAUDE_CODE_SHELL bash", "claude", fakeHost(map[string]string{"CLAUDE_CODE_SHELL": "/bin/bash", "SHELL": "/usr/bin/fish"}, nil, "/bin/bash"), ""},
		{"claude: a fish in a folder named bash", "claude", fakeHost(map[string]string{"SHELL": "/opt/bash-tools/fish"}, nil, "/opt/bash-tools/fish"),
			`"/opt/bash-tools/fish" (SHELL)`},
		{"claude: CLAUDE_CODE_SHELL a fish named for zsh", "claude", fakeHost(map[string]string{"CLAUDE_CODE_SHELL": "/opt/zsh/fish", "SHELL": "/bin/bash"}, nil, "/opt/zsh/fish", "/bin/bash"),
			"CLAUDE_CODE_SHELL to bash's or zsh's path"},
		{"claude: one it cannot run is passed over", "claude", fakeHost(map[string]string{"CLAUDE_CODE_SHELL": "/opt/zsh/fish", "SHELL": "/bin/bash"}, nil, "/bin/bash"), ""},
		{"claude: a relative name is tried as it is", "claude", fakeHost(map[string]string{"SHELL": "fish-bash"}, nil), `"fish-bash"`},
		{"codex: SHELL is not what Codex reads", "codex", fakeHost(map[string]string{"SHELL": "/usr/bin/pwsh"}, passwd("/bin/bash")), ""},
		{"codex: login shell bash", "codex", fakeHost(nil, passwd("/usr/bin/bash")), ""},
		{"codex: login shell fish becomes bash", "codex", fakeHost(nil, passwd("/usr/bin/fish")), ""},
		{"codex: login shell nu becomes bash", "codex", fakeHost(nil, passwd("/usr/bin/nu")), ""},
		{"codex: login shell pwsh", "codex", fakeHost(nil, passwd("/usr/bin/pwsh")), `"/usr/bin/pwsh" (the login shell)`},
		{"codex: login shell powershell", "codex", fakeHost(nil, passwd("/opt/microsoft/powershell")), "chsh -s /bin/bash"},
		{"codex: login shell named cmd", "codex", fakeHost(nil, passwd("/usr/local/bin/cmd")), `"/usr/local/bin/cmd"`},
		{"codex: pwsh on PATH, for the model to name", "codex", fakeHost(map[string]string{"PATH": "/usr/local/bin:/usr/bin"}, passwd("/bin/bash"), "/usr/bin/pwsh"),
			`"/usr/bin/pwsh" (the model may name it in exec_command's shell argument`},
		{"codex: powershell on PATH", "codex", fakeHost(map[string]string{"PATH": "/opt/ps"}, passwd("/bin/bash"), "/opt/ps/powershell"), `"/opt/ps/powershell"`},
		{"codex: cmd on PATH", "codex", fakeHost(map[string]string{"PATH": "/usr/bin:/opt/bin"}, passwd("/bin/zsh"), "/opt/bin/cmd"), `"/opt/bin/cmd"`},
		{"codex: /usr/local/bin/pwsh off PATH", "codex", fakeHost(map[string]string{"PATH": "/usr/bin"}, passwd("/bin/bash"), "/usr/local/bin/pwsh"), "keep pwsh, powershell and cmd off Codex's PATH"},
		{"codex: fish and bash on PATH", "codex", fakeHost(map[string]string{"PATH": "/usr/bin"}, passwd("/usr/bin/fish"), "/usr/bin/fish", "/usr/bin/bash"), ""},
		{"codex: no passwd entry", "codex", fakeHost(nil, map[string]string{"/etc/passwd": "root:x:0:0:root:/root:/usr/bin/pwsh\n"}), ""},
		{"gemini: SHELL fish", "gemini", fakeHost(map[string]string{"SHELL": "/usr/bin/fish"}, nil), ""},
		{"gemini: SHELL pwsh", "gemini", fakeHost(map[string]string{"SHELL": "/usr/bin/pwsh"}, passwd("/usr/bin/pwsh")), ""},
		{"droid: SHELL tcsh", "droid", fakeHost(map[string]string{"SHELL": "/bin/tcsh"}, nil), ""},
		{"cline: SHELL pwsh", "cline", fakeHost(map[string]string{"SHELL": "/usr/bin/pwsh"}, nil), ""},
		{"pi: no settings, SHELL fish", "pi", fakeHost(map[string]string{"HOME": "/home/me", "SHELL": "/usr/bin/fish"}, nil), ""},
		{"pi: global shellPath bash", "pi", fakeHost(map[string]string{"HOME": "/home/me"},
			map[string]string{"/home/me/.pi/agent/settings.json": `{"shellPath": "/usr/bin/bash"}`}), ""},
		{"pi: global shellPath fish", "pi", fakeHost(map[string]string{"HOME": "/home/me"},
			map[string]string{"/home/me/.pi/agent/settings.json": `{"shellPath": "/usr/bin/fish"}`}), `"/usr/bin/fish" ("shellPath" in Pi's settings)`},
		{"pi: PI_CODING_AGENT_DIR's shellPath pwsh", "pi", fakeHost(map[string]string{"HOME": "/home/me", "PI_CODING_AGENT_DIR": "~/pi"},
			map[string]string{"/home/me/pi/settings.json": `{"shellPath": "/usr/bin/pwsh"}`}), `"/usr/bin/pwsh"`},
		{"pi: the project's shellPath over the global one", "pi", fakeHost(map[string]string{"HOME": "/home/me"},
			map[string]string{"/home/me/.pi/agent/settings.json": `{"shellPath": "/bin/bash"}`, cwd + "/.pi/settings.json": `{"shellPath": "/usr/bin/nu"}`}),
			`"/usr/bin/nu"`},
		{"pi: the project's null clears the global one", "pi", fakeHost(map[string]string{"HOME": "/home/me"},
			map[string]string{"/home/me/.pi/agent/settings.json": `{"shellPath": "/usr/bin/fish"}`, cwd + "/.pi/settings.json": `{"shellPath": null}`}), ""},
		{"pi: another key's case is not shellPath", "pi", fakeHost(map[string]string{"HOME": "/home/me"},
			map[string]string{"/home/me/.pi/agent/settings.json": `{"ShellPath": "/usr/bin/fish"}`}), ""},
		{"copilot: SHELL fish", "copilot", fakeHost(map[string]string{"SHELL": "/usr/bin/fish"}, nil), ""},
		{"copilot: COPILOT_BASH_PATH bash", "copilot", fakeHost(map[string]string{"COPILOT_BASH_PATH": "/usr/local/bin/bash"}, nil), ""},
		{"copilot: COPILOT_BASH_PATH fish", "copilot", fakeHost(map[string]string{"COPILOT_BASH_PATH": "/usr/bin/fish"}, nil),
			"point COPILOT_BASH_PATH at bash"},
		{"opencode: left to its plugin", "opencode", fakeHost(map[string]string{"SHELL": "/usr/bin/pwsh"}, nil), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LookupClient(tt.client)
			if err != nil {
				t.Fatal(err)
			}
			got := shellRefusal(c, tt.host, cwd)
			switch {
			case tt.refuse == "" && got != "":
				t.Errorf("refused: %s", got)
			case tt.refuse != "" && !strings.Contains(got, tt.refuse):
				t.Errorf("reason %q, want one containing %q", got, tt.refuse)
			case got != "" && (strings.Contains(got, "\n") || !strings.HasPrefix(got, "pathgrant: "+c.Title+" may run this command with ")):
				t.Errorf("reason %q is not one line naming the client", got)
			}
		})
	}
}

// TestEveryRewritingClientPicksAShell: a client whose commands the hook
// rewrites has its way of picking a shell in the table, so none is
// rewritten for a shell nobody checked.
func TestEveryRewritingClientPicksAShell(t *testing.T) {
	for _, c := range clients {
		if (c.shell != shellNone) != c.Rewrites {
			t.Errorf("%s: rewrites %v, shell pick %d", c.Name, c.Rewrites, c.shell)
		}
	}
}

// TestConfineShellRefusesAForeignShell: the refusal reaches the verdict
// through confineShell, with the client's environment the hook was given,
// before any rewrite.
func TestConfineShellRefusesAForeignShell(t *testing.T) {
	call := Call{Client: "copilot", Shell: true, Cwd: "/w", ToolInput: json.RawMessage(`{"command":"ls"}`)}
	answers := []wire.Answer{{Exec: &wire.ExecInfo{Confine: true, Level: "landlock", Capability: strings.Repeat("a", 64)}}}
	bin := func() (string, error) { return "/opt/pathgrant-confine", nil }
	for shell, allow := range map[string]bool{"": true, "/bin/bash": true, "/usr/bin/fish": false} {
		env := map[string]string{"COPILOT_BASH_PATH": shell}
		v := confineShell(call, Verdict{Allow: true}, answers, "", bin, func(k string) string { return env[k] })
		if v.Allow != allow || (v.Rewrite != nil) != allow {
			t.Errorf("COPILOT_BASH_PATH=%q: verdict %+v, want allow %v", shell, v, allow)
		}
	}
}
