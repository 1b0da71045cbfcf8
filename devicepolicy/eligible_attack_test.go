package devicepolicy

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestAttack43UserFolderLink: a user folder that is a link is judged by
// the folder it leads to as well, since the guard and the held-open view
// take that folder as the eligible root: a link to the home folder (or
// above it) or into a folder never offered is left out; a link to an
// ordinary folder elsewhere stays.
func TestAttack43UserFolderLink(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home", "u")
	for _, d := range []string{".ssh", ".config/app", "Music", "Documents", "/cloud/Pictures"} {
		p := filepath.Join(home, d)
		if filepath.IsAbs(d) {
			p = filepath.Join(root, d)
		}
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"Desktop": home, "Public": root, "Templates": filepath.Join(home, ".ssh"),
		"Videos": filepath.Join(home, ".config", "app"), "Pictures": filepath.Join(root, "cloud", "Pictures"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(home, name)); err != nil {
			t.Fatal(err)
		}
	}
	h := func(n string) string { return filepath.Join(home, n) }
	tests := []struct {
		name   string
		folder string
		want   bool
	}{
		{"a link to the home folder", h("Desktop"), false},
		{"a link above the home folder", h("Public"), false},
		{"a link to ~/.ssh", h("Templates"), false},
		{"a link into ~/.config", h("Videos"), false},
		{"a link to an ordinary folder elsewhere", h("Pictures"), true},
		{"a plain folder", h("Music"), true},
		{"a folder that does not exist yet", h("Downloads"), true},
	}
	// the home folder itself a link (/home/u -> /data/u), its Desktop a
	// link to where the home folder leads
	data := filepath.Join(root, "data", "v")
	linkedHome := filepath.Join(root, "home", "v")
	if err := os.MkdirAll(filepath.Join(data, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(data, linkedHome); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(data, filepath.Join(data, "Desktop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(data, ".ssh"), filepath.Join(data, "Documents")); err != nil {
		t.Fatal(err)
	}
	tests = append(tests, []struct {
		name   string
		folder string
		want   bool
	}{
		{"in a linked home, a link to where it leads", filepath.Join(linkedHome, "Desktop"), false},
		{"in a linked home, a link to its ~/.ssh", filepath.Join(linkedHome, "Documents"), false},
	}...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := home
			if filepath.Dir(tc.folder) == linkedHome {
				home = linkedHome
			}
			p, err := Parse("policy.toml", nil, Env{Home: home, UserFolders: []string{tc.folder}})
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(p.EligibleReadOnly, tc.folder); got != tc.want {
				t.Errorf("eligible %q: %v, want %v (eligible = %q)", tc.folder, got, tc.want, p.EligibleReadOnly)
			}
			if got := slices.Contains(Defaults(Env{Home: home, UserFolders: []string{tc.folder}}).EligibleReadOnly, tc.folder); got != tc.want {
				t.Errorf("default eligible %q: %v, want %v", tc.folder, got, tc.want)
			}
		})
	}
}

// TestAttack43ListedRootLink: a root the policy file lists is judged by
// the folder it leads to as well, as a user folder is: a link into a
// folder never offered is refused, naming the line; a link to an
// ordinary folder stays.
func TestAttack43ListedRootLink(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home", "u")
	for _, d := range []string{filepath.Join(home, ".ssh"), filepath.Join(root, "shared")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	keys, shared := filepath.Join(root, "keys"), filepath.Join(root, "data")
	if err := os.Symlink(filepath.Join(home, ".ssh"), keys); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "shared"), shared); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		root string
		ok   bool
	}{
		{"a link to ~/.ssh", keys, false},
		{"a link to an ordinary folder", shared, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := []byte("eligible_read_only = [\"" + tc.root + "\"]\n")
			p, err := Parse("policy.toml", file, Env{Home: home})
			if tc.ok != (err == nil) {
				t.Fatalf("listed %s: error %v, want ok %v", tc.root, err, tc.ok)
			}
			if tc.ok && !slices.Contains(p.EligibleReadOnly, tc.root) {
				t.Fatalf("listed %s not eligible: %q", tc.root, p.EligibleReadOnly)
			}
		})
	}
}
