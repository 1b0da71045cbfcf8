package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pathgrant/hooks/clientconfig"
)

// opencodeSystemDriver loads the shipped OpenCode plugin as OpenCode does
// and hands its experimental.chat.system.transform hook a system prompt,
// printing the prompt as the hook left it.
const opencodeSystemDriver = `
const [directory, worktree, systemJSON] = process.argv.slice(2);
const mod = await import("./pathgrant.mjs");
const client = { config: { get: async () => ({ data: {} }) } };
const plugin = await mod.PathgrantPlugin({ client, directory, worktree, project: {}, $: null });
const output = { system: JSON.parse(systemJSON) };
await plugin["experimental.chat.system.transform"]({ sessionID: "ses_1", model: {} }, output);
console.log(JSON.stringify(output.system));
`

// TestOpenCodeWithholdsLinkedInstructions: OpenCode puts the AGENTS.md,
// CLAUDE.md or CONTEXT.md of the project's folders into the system prompt
// with no tool call, so a link the agent made in the workspace to a file
// outside would hand the model that file unasked; the plugin withholds
// such a file's content and leaves every other instruction file as it is;
// likewise the skills it lists from each SKILL.md it reads.
func TestOpenCodeWithholdsLinkedInstructions(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the OpenCode plugin cannot be run")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo, ws, home := root+"/repo", root+"/repo/ws", root+"/home"
	writeFile(t, home+"/secret.txt", "TOPSECRET\n")
	writeFile(t, home+"/dotfiles/AGENTS.md", "the person's own\n")
	writeFile(t, ws+"/notes.md", "in the workspace\n")
	writeFile(t, ws+"/plain/AGENTS.md", "plain\n")
	writeFile(t, ws+"/.agents/skills/ok/SKILL.md", "---\nname: ok\n---\n")
	for link, target := range map[string]string{
		ws + "/CLAUDE.md":                    "../../home/secret.txt",
		ws + "/in/AGENTS.md":                 "../notes.md",
		ws + "/gone/AGENTS.md":               root + "/missing",
		ws + "/.agents/skills/s/SKILL.md":    home + "/secret.txt",
		repo + "/AGENTS.md":                  home + "/secret.txt",
		home + "/.config/opencode/AGENTS.md": home + "/dotfiles/AGENTS.md",
	} {
		if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	const withheld = "(withheld by pathgrant: this file is a link to a file outside the workspace)"
	block := func(file, content string) string { return "Instructions from: " + file + "\n" + content }
	skill := func(name, desc, file string) string {
		return "  <skill>\n    <name>" + name + "</name>\n    <description>" + desc + "</description>\n    <location>" + file + "</location>\n  </skill>\n"
	}
	cases := []struct {
		name, worktree, system, want string
	}{
		{"a skill whose SKILL.md links out of the workspace", ws,
			"<available_skills>\n" + skill("ok", "fine", ws+"/.agents/skills/ok/SKILL.md") + skill("s", "SECRET", ws+"/.agents/skills/s/SKILL.md") +
				skill("b", "built in", "&lt;built-in&gt;") + "</available_skills>",
			"<available_skills>\n" + skill("ok", "fine", ws+"/.agents/skills/ok/SKILL.md") + skill("b", "built in", "&lt;built-in&gt;") + "</available_skills>"},
		{"a link out of the workspace", ws,
			"You are OpenCode.\n" + block(ws+"/CLAUDE.md", "TOPSECRET\n") + "\nSkills provide …",
			"You are OpenCode.\n" + block(ws+"/CLAUDE.md", withheld) + "\nSkills provide …"},
		{"each time it appears", ws,
			block(ws+"/CLAUDE.md", "TOPSECRET\n") + "\n" + block(ws+"/CLAUDE.md", "TOPSECRET\n"),
			block(ws+"/CLAUDE.md", withheld) + "\n" + block(ws+"/CLAUDE.md", withheld)},
		{"changed since OpenCode read it: cut up to the next file", ws,
			block(ws+"/CLAUDE.md", "OLDSECRET\n") + "\n" + block(ws+"/plain/AGENTS.md", "plain\n"),
			block(ws+"/CLAUDE.md", withheld) + "\n" + block(ws+"/plain/AGENTS.md", "plain\n")},
		{"a dangling link", ws,
			block(ws+"/gone/AGENTS.md", "TOPSECRET\n") + "\nSkills",
			block(ws+"/gone/AGENTS.md", withheld)},
		{"in the worktree above the project", repo,
			block(repo+"/AGENTS.md", "TOPSECRET\n") + "\nSkills",
			block(repo+"/AGENTS.md", withheld) + "\nSkills"},
		{"a plain file in the workspace", ws,
			block(ws+"/plain/AGENTS.md", "plain\n") + "\nSkills",
			block(ws+"/plain/AGENTS.md", "plain\n") + "\nSkills"},
		{"a link within the workspace", ws,
			block(ws+"/in/AGENTS.md", "in the workspace\n") + "\nSkills",
			block(ws+"/in/AGENTS.md", "in the workspace\n") + "\nSkills"},
		{"the person's own file outside the workspace, a link", "/",
			block(home+"/.config/opencode/AGENTS.md", "the person's own\n"),
			block(home+"/.config/opencode/AGENTS.md", "the person's own\n")},
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pathgrant.mjs"), clientconfig.OpenCodePluginFor([]string{"/bin/false"}))
	writeFile(t, filepath.Join(dir, "driver.mjs"), opencodeSystemDriver)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			system, _ := json.Marshal([]string{tc.system})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, node, filepath.Join(dir, "driver.mjs"), ws, tc.worktree, string(system)).Output()
			if err != nil {
				t.Fatalf("node: %v\n%s", err, out)
			}
			var got []string
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("driver output %q: %v", out, err)
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("system prompt %q, want %q", got, tc.want)
			}
			if strings.Contains(strings.Join(got, ""), "SECRET") {
				t.Errorf("the secret reached the system prompt: %q", got)
			}
		})
	}
}
