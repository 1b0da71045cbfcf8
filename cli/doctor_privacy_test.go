package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDoctorPrivacy plays a Mac on Linux: each eligible root that macOS
// privacy controls guard is listed as doctor's own process, and an EPERM
// there fails with the setting that fixes it; Linux says nothing.
func TestDoctorPrivacy(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	eperm := func(dir string) error { return &fs.PathError{Op: "open", Path: dir, Err: syscall.EPERM} }
	tests := []struct {
		name   string
		goos   string
		policy string // policy.toml; "" for the defaults (the user folders: Desktop, Documents, Downloads are guarded)
		list   func(string) error
		want   []doctorCheck // Detail and Fix as substrings
	}{
		{name: "linux says nothing", goos: "linux", list: eperm},
		{name: "user folders readable", goos: "darwin", list: func(string) error { return nil },
			want: []doctorCheck{{Status: doctorOK, Detail: home + "/Desktop: readable: macOS lets Terminal into Desktop Folder"},
				{Status: doctorOK, Detail: home + "/Documents: readable: macOS lets Terminal into Documents Folder"},
				{Status: doctorOK, Detail: home + "/Downloads: readable: macOS lets Terminal into Downloads Folder"}}},
		{name: "user folders refused", goos: "darwin", list: eperm,
			want: []doctorCheck{{Status: doctorFail, Detail: home + "/Desktop: macOS privacy controls refuse Terminal", Fix: "(Desktop Folder)"},
				{Status: doctorFail, Detail: home + "/Documents: macOS privacy controls refuse Terminal", Fix: "(Documents Folder)"},
				{Status: doctorFail, Detail: home + "/Downloads: macOS privacy controls refuse Terminal (Operation not permitted)",
					Fix: "System Settings → Privacy & Security → Files and Folders (or Full Disk Access): allow Terminal (Downloads Folder)"}}},
		{name: "downloads alone, missing", goos: "darwin", policy: "eligible_read_only = [\"~/Downloads\"]\n",
			list: func(dir string) error { return &fs.PathError{Op: "open", Path: dir, Err: syscall.ENOENT} },
			want: []doctorCheck{{Status: doctorInfo, Detail: home + "/Downloads: does not exist"}}},
		{name: "only guarded roots are listed", goos: "darwin", list: eperm,
			policy: "eligible_read_only = [\"" + home + "/shared\", \"" + home + "/Documents/papers\"]\n",
			want: []doctorCheck{{Status: doctorFail, Detail: home + "/Documents/papers: macOS privacy controls refuse Terminal",
				Fix: "allow Terminal (Documents Folder)"}}},
		{name: "no guarded root", goos: "darwin", list: eperm, policy: "eligible_read_only = [\"" + home + "/shared\"]\n",
			want: []doctorCheck{{Status: doctorOK, Detail: "no eligible root is in a folder macOS privacy controls guard"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"HOME": home, "TERM_PROGRAM": "Apple_Terminal", "XDG_CONFIG_HOME": home + "/config-" + strings.ReplaceAll(tc.name, " ", "-")}
			if tc.policy != "" {
				dir := vars["XDG_CONFIG_HOME"] + "/pathgrant"
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(dir+"/policy.toml", []byte(tc.policy), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := doctorEnv{Getenv: func(k string) string { return vars[k] }}
			got := privacyChecksOn(env, privacyHost{GOOS: tc.goos, List: tc.list})
			if len(got) != len(tc.want) {
				t.Fatalf("checks %+v, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Status != w.Status || !strings.Contains(g.Detail, w.Detail) || !strings.Contains(g.Fix, w.Fix) || (w.Fix == "") != (g.Fix == "") {
					t.Errorf("check %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}
