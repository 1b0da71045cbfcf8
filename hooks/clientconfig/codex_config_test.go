package clientconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexHookHash checks the trust hash against values the real Codex
// CLI 0.169.0 reported for the same hooks (`codex app-server`, hooks/list,
// currentHash).
func TestCodexHookHash(t *testing.T) {
	sixty, thirty, five := uint64(60), uint64(30), uint64(5)
	star := "*"
	tests := []struct {
		name, label string
		matcher     *string
		h           codexHandler
		want        string
	}{
		{"PreToolUse, timeout 60, no matcher", "pre_tool_use", nil,
			codexHandler{Type: "command", Command: "/tmp/cxh/marker.sh", Timeout: &sixty},
			"sha256:efd24d196117987ef71ffc9e5b6566ca035fa0e6fb8461aeac02d455e08a1ab9"},
		{"PreToolUse, timeout 30, matcher *", "pre_tool_use", &star,
			codexHandler{Type: "command", Command: "/x/pathgrant-hook codex", Timeout: &thirty},
			"sha256:abbc2c13aa0548472f6da2cf6dc8ae6226a443e21fdda03dd3b33d3fc39636e3"},
		{"SessionEnd, timeout 5 lowered to 3, no matcher", "session_end", nil,
			codexHandler{Type: "command", Command: "/x/pathgrant-hook codex", Timeout: &five},
			"sha256:e3131ada1c8e2e05e1fb133e545479b53ee1c87220df164b17d9660e0e898490"},
		{"SessionEnd, timeout 5 lowered to 3, matcher *", "session_end", &star,
			codexHandler{Type: "command", Command: "/x/pathgrant-hook codex", Timeout: &five},
			"sha256:7ae9ee6ed421f38043269b914ce2eccad3dc3fd70ad5a10fc2c4761730593297"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := codexHookHash(tc.label, tc.matcher, tc.h)
			if err != nil || got != tc.want {
				t.Errorf("hash %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestEditCodexConfig installs the trust into a config.toml that has
// settings of its own, twice, then uninstalls: the person's settings stay
// byte for byte, a hooks feature switched off is switched on and back.
func TestEditCodexConfig(t *testing.T) {
	const own = "model = \"gpt-5\"\n\n[features]\nhooks = false\n\n[projects.\"/w\"]\ntrust_level = \"trusted\"\n"
	tests := []struct {
		name, before string
		feature      string // the features line after installing
	}{
		{"empty file", "", ""},
		{"settings and the feature off", own, "hooks = true " + codexFeatureNote},
		{"a trust Codex wrote for the same key", "[hooks.state.\"/h/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:old\"\n", ""},
		{"pathgrant's trust of another hooks.json stays", codexTrustMarker + "\n[hooks.state.\"/p/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:cc\"\n", ""},
	}
	trusts := []codexTrust{{"/h/.codex/hooks.json:pre_tool_use:0:0", "sha256:aa"}, {"/h/.codex/hooks.json:permission_request:0:0", "sha256:bb"}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(path, []byte(tc.before), 0o600); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if _, err := editCodexConfig(path, "/h/.codex/hooks.json", trusts, false); err != nil {
					t.Fatal(err)
				}
			}
			data, _ := os.ReadFile(path)
			got := string(data)
			for _, tr := range trusts {
				table := "[hooks.state." + tomlString(tr.key) + "]\ntrusted_hash = " + tomlString(tr.hash) + "\n"
				if strings.Count(got, table) != 1 || strings.Count(got, tomlString(tr.key)) != 1 {
					t.Errorf("want exactly one %q in:\n%s", table, got)
				}
			}
			if tc.feature != "" && !strings.Contains(got, tc.feature) {
				t.Errorf("want %q in:\n%s", tc.feature, got)
			}
			if _, err := editCodexConfig(path, "/h/.codex/hooks.json", nil, true); err != nil {
				t.Fatal(err)
			}
			data, _ = os.ReadFile(path)
			want := tc.before
			if strings.Contains(want, "sha256:old") {
				want = "" // replaced by pathgrant's, then removed
			}
			if string(data) != want {
				t.Errorf("after uninstall:\n%s\nwant:\n%s", data, want)
			}
		})
	}
}
