package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUninstallLaunchAgent: the agent is booted out when loaded, and its
// plist removed only when it is pathgrant's; the store stays.
func TestUninstallLaunchAgent(t *testing.T) {
	tests := []struct {
		name      string
		loaded    bool
		plist     string // "": what install-desktop writes; "none": no plist
		wantLines []string
		removed   bool
	}{
		{name: "installed and loaded", loaded: true, removed: true,
			wantLines: []string{"stopped gui/501/" + agentLabel, "removed $PLIST"}},
		{name: "installed, not loaded", removed: true, wantLines: []string{"removed $PLIST"}},
		{name: "the person's own plist stays", plist: "<plist><dict><key>Label</key><string>mine</string></dict></plist>\n",
			wantLines: []string{"left $PLIST: not written by pathgrant install-desktop"}},
		{name: "nothing installed", plist: "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeLaunchd{}
			h, home := agentTestHost(t, f)
			plist := filepath.Join(home, "Library", "LaunchAgents", agentLabel+".plist")
			store := filepath.Join(home, "Library", "Application Support", "pathgrant", "pathgrant.db")
			writeRigFile(t, store, "the store")
			if _, err := installLaunchAgent(h); err != nil {
				t.Fatal(err)
			}
			switch tt.plist {
			case "":
			case "none":
				os.Remove(plist)
			default:
				writeRigFile(t, plist, tt.plist)
			}
			f.loaded, f.calls = tt.loaded, nil
			lines, err := uninstallLaunchAgent(h)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, l := range tt.wantLines {
				want = append(want, strings.ReplaceAll(l, "$PLIST", plist))
			}
			if !slices.Equal(lines, want) {
				t.Errorf("said %q, want %q", lines, want)
			}
			if _, err := os.Stat(plist); (err != nil) != (tt.removed || tt.plist == "none") {
				t.Errorf("plist there after uninstall: %v, want removed %v", err == nil, tt.removed)
			}
			if _, err := os.Stat(store); err != nil {
				t.Errorf("store gone: %v", err)
			}
			if len(f.calls) != 1 || f.calls[0][1] != "bootout" {
				t.Errorf("launchctl asked %q, want one bootout", f.calls)
			}
		})
	}
}

// writeRigFile writes a file of a test's scratch home, folders and all.
func writeRigFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
