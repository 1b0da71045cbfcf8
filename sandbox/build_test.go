package sandbox

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pathgrant/guard"
	"pathgrant/wire"
)

// fakeFS is a file system described by its paths: a trailing "/" marks a
// directory, "@target" a symlink; parents are implied. canon maps a path
// to its canonical form where a link is on the way.
type fakeFS struct {
	entries map[string][]Entry
	canon   map[string]string
	denied  map[string]bool
}

func newFakeFS(paths ...string) *fakeFS {
	f := &fakeFS{entries: map[string][]Entry{}, canon: map[string]string{}, denied: map[string]bool{}}
	for _, p := range paths {
		typ := TypeOther
		switch {
		case strings.HasSuffix(p, "/"):
			typ, p = TypeDir, strings.TrimSuffix(p, "/")
		case strings.Contains(p, "@"):
			var target string
			p, target, _ = strings.Cut(p, "@")
			typ = TypeSymlink
			f.canon[p] = target
		}
		f.addEntry(p, typ)
	}
	return f
}

func (f *fakeFS) addEntry(p string, typ EntryType) {
	dir, name := filepath.Dir(p), filepath.Base(p)
	if p == "/" {
		return
	}
	i := slices.IndexFunc(f.entries[dir], func(e Entry) bool { return e.Name == name })
	if i < 0 {
		f.entries[dir] = append(f.entries[dir], Entry{Name: name, Type: typ})
	} else if typ != TypeOther {
		f.entries[dir][i].Type = typ
	}
	f.addEntry(dir, TypeDir)
}

func (f *fakeFS) ReadDir(dir string) ([]Entry, error) {
	if f.denied[dir] {
		return nil, fs.ErrPermission
	}
	es, ok := f.entries[dir]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return es, nil
}

// Canonical replaces the longest linked prefix by its target.
func (f *fakeFS) Canonical(p string) (string, error) {
	for a := range guard.Ancestors(p) {
		if t, ok := f.canon[a]; ok {
			return t + strings.TrimPrefix(p, a), nil
		}
	}
	return p, nil
}

const fileRW = ReadWrite & FileRights

func TestBuild(t *testing.T) {
	work := []string{"/w"}
	tests := []struct {
		name  string
		fs    *fakeFS
		in    Input
		rules []Rule
	}{{
		name:  "workspace without blocked or protected paths is read-write as a tree",
		fs:    newFakeFS("/w/main.go", "/w/src/"),
		in:    Input{Policy: wire.Policy{Workspace: work}},
		rules: []Rule{{Path: "/w", Access: ReadWrite, Why: "workspace"}},
	}, {
		name: "protected file splits the workspace around it",
		fs:   newFakeFS("/w/main.go", "/w/src/a.go", "/w/.claude/settings.json", "/w/.claude/notes.md", "/w/link@/etc"),
		in:   Input{Policy: wire.Policy{Workspace: work, Protected: []string{"/w/.claude/settings.json"}}},
		rules: []Rule{
			{Path: "/w", Access: ReadExec, Why: "workspace"},
			{Path: "/w/.claude/notes.md", Access: fileRW, File: true, Why: "workspace (split)"},
			{Path: "/w/main.go", Access: fileRW, File: true, Why: "workspace (split)"},
			{Path: "/w/src", Access: ReadWrite, Why: "workspace (split)"},
		},
	}, {
		name: "protected path that does not exist yet cannot be created",
		fs:   newFakeFS("/w/src/"),
		in:   Input{Policy: wire.Policy{Workspace: work, Protected: []string{"/w/.codex/hooks.json"}}},
		rules: []Rule{
			{Path: "/w", Access: ReadExec, Why: "workspace"},
			{Path: "/w/src", Access: ReadWrite, Why: "workspace (split)"},
		},
	}, {
		name: "blocked-write folder gets nothing, its siblings everything",
		fs:   newFakeFS("/w/secrets/key", "/w/docs/", "/w/a/b/c/", "/w/a/b/blocked/", "/w/a/x"),
		in:   Input{Policy: wire.Policy{Workspace: work, BlockedWrite: []string{"/w/secrets", "/w/a/b/blocked"}}},
		rules: []Rule{
			{Path: "/w", Access: ReadExec, Why: "workspace"},
			{Path: "/w/a/b/c", Access: ReadWrite, Why: "workspace (split)"},
			{Path: "/w/a/x", Access: fileRW, File: true, Why: "workspace (split)"},
			{Path: "/w/docs", Access: ReadWrite, Why: "workspace (split)"},
		},
	}, {
		name: "whole components only: /w/src-old does not split /w/src",
		fs:   newFakeFS("/w/src/a", "/w/src-old/"),
		in:   Input{Policy: wire.Policy{Workspace: work, BlockedWrite: []string{"/w/src-old"}}},
		rules: []Rule{
			{Path: "/w", Access: ReadExec, Why: "workspace"},
			{Path: "/w/src", Access: ReadWrite, Why: "workspace (split)"},
		},
	}, {
		name:  "blocked path holding the workspace leaves it read-only",
		fs:    newFakeFS("/w/a"),
		in:    Input{Policy: wire.Policy{Workspace: work, BlockedWrite: []string{"/"}}},
		rules: []Rule{{Path: "/w", Access: ReadExec, Why: "workspace"}},
	}, {
		name:  "blocked path equal to the workspace leaves it read-only",
		fs:    newFakeFS("/w/a"),
		in:    Input{Policy: wire.Policy{Workspace: work, BlockedWrite: []string{"/w"}}},
		rules: []Rule{{Path: "/w", Access: ReadExec, Why: "workspace"}},
	}, {
		name: "protected path through a link excludes the link and its target",
		fs:   newFakeFS("/w/.claude@/w/real", "/w/real/settings.json", "/w/real/other", "/w/src/"),
		in:   Input{Policy: wire.Policy{Workspace: work, Protected: []string{"/w/.claude/settings.json"}}},
		rules: []Rule{
			{Path: "/w", Access: ReadExec, Why: "workspace"},
			{Path: "/w/real/other", Access: fileRW, File: true, Why: "workspace (split)"},
			{Path: "/w/src", Access: ReadWrite, Why: "workspace (split)"},
		},
	}, {
		name: "nested workspace is split by a path excluded inside it",
		fs:   newFakeFS("/w/inner/blocked/", "/w/inner/ok/", "/w/top"),
		in:   Input{Policy: wire.Policy{Workspace: []string{"/w", "/w/inner"}, BlockedWrite: []string{"/w/inner/blocked"}}},
		rules: []Rule{
			{Path: "/w", Access: ReadExec, Why: "workspace"},
			{Path: "/w/inner", Access: ReadExec, Why: "workspace"},
			{Path: "/w/inner/ok", Access: ReadWrite, Why: "workspace (split)"},
			{Path: "/w/top", Access: fileRW, File: true, Why: "workspace (split)"},
		},
	}, {
		name: "read-only roots and read grants are read-only; other grants give nothing",
		fs:   newFakeFS("/w/", "/ro/x", "/dl/report.csv", "/dl/folder/a", "/etc/passwd"),
		in: Input{Policy: wire.Policy{Workspace: work, ReadOnly: []string{"/ro"}, Grants: []guard.Scope{
			{Op: guard.OpRead, Path: "/dl/report.csv", Kind: guard.KindFile},
			{Op: guard.OpRead, Path: "/dl/folder", Kind: guard.KindFolder},
			{Op: guard.OpWrite, Path: "/etc/passwd", Kind: guard.KindFile},
			{Op: guard.OpExecute, Path: "/dl", Kind: guard.KindFolder},
		}}},
		rules: []Rule{
			{Path: "/dl/folder", Access: ReadOnly, Why: "grant"},
			{Path: "/dl/report.csv", Access: ReadFile, File: true, Why: "grant"},
			{Path: "/ro", Access: ReadOnly, Why: "read-only root"},
			{Path: "/w", Access: ReadWrite, Why: "workspace"},
		},
	}, {
		name: "used once grant is added; grants never reach protected paths",
		fs:   newFakeFS("/w/", "/home/u/.config/pathgrant/x", "/home/u/.config/app/y", "/home/u/z"),
		in: Input{
			Policy: wire.Policy{Workspace: work, Protected: []string{"/home/u/.config/pathgrant"}, Grants: []guard.Scope{
				{Op: guard.OpRead, Path: "/home/u/.config", Kind: guard.KindFolder},
				{Op: guard.OpRead, Path: "/home/u/.config/pathgrant/x", Kind: guard.KindFile},
			}},
			Used: []guard.Scope{{Op: guard.OpRead, Path: "/home/u/z", Kind: guard.KindFile}},
		},
		rules: []Rule{
			{Path: "/home/u/.config/app", Access: ReadOnly, Why: "grant (split)"},
			{Path: "/home/u/z", Access: ReadFile, File: true, Why: "grant"},
			{Path: "/w", Access: ReadWrite, Why: "workspace"},
		},
	}, {
		name: "tmp dir, terminals and system rules",
		fs:   newFakeFS("/w/", "/run/user/1/pathgrant-exec/s1/"),
		in: Input{Policy: wire.Policy{Workspace: work}, TmpDir: "/run/user/1/pathgrant-exec/s1",
			Terminals: []string{"/dev/pts/3"}, System: []Rule{{Path: "/usr", Access: ReadExec, Follow: true, Why: "system"}}},
		rules: []Rule{
			{Path: "/dev/pts/3", Access: DeviceRW, File: true, Why: "terminal"},
			{Path: "/run/user/1/pathgrant-exec/s1", Access: ReadWrite, Why: "tmp"},
			{Path: "/usr", Access: ReadExec, Follow: true, Why: "system"},
			{Path: "/w", Access: ReadWrite, Why: "workspace"},
		},
	}, {
		name:  "empty policy: only what the system rules give",
		fs:    newFakeFS(),
		in:    Input{System: []Rule{{Path: "/etc", Access: ReadOnly, Follow: true, Why: "system"}}},
		rules: []Rule{{Path: "/etc", Access: ReadOnly, Follow: true, Why: "system"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Build(tt.in, tt.fs)
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			if !slices.Equal(got, tt.rules) {
				t.Errorf("rules:\n%s\nwant:\n%s", rulesText(got), rulesText(tt.rules))
			}
		})
	}
}

func rulesText(rs []Rule) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString("  " + r.String())
		if r.File {
			b.WriteString(" file")
		}
		if r.Follow {
			b.WriteString(" follow")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestBuildErrors(t *testing.T) {
	denied := newFakeFS("/w/.claude/settings.json", "/w/src/")
	denied.denied["/w/.claude"] = true
	tests := []struct {
		name string
		fs   *fakeFS
		in   Input
		want string
	}{
		{"relative workspace", newFakeFS(), Input{Policy: wire.Policy{Workspace: []string{"w"}}}, `path "w" is not absolute`},
		{"relative grant", newFakeFS(), Input{Policy: wire.Policy{Grants: []guard.Scope{{Op: guard.OpRead, Path: "x", Kind: guard.KindFile}}}}, `path "x"`},
		{"relative tmp dir", newFakeFS(), Input{TmpDir: "tmp"}, `path "tmp"`},
		{"unreadable spine directory", denied, Input{Policy: wire.Policy{Workspace: []string{"/w"}, Protected: []string{"/w/.claude/settings.json"}}}, "list /w/.claude"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, err := Build(tt.in, tt.fs)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Build = %v, %v; want an error containing %q", rules, err, tt.want)
			}
		})
	}
}

func TestBuildVanishedSpineDirectory(t *testing.T) {
	f := newFakeFS("/w/a/blocked/", "/w/b/")
	delete(f.entries, "/w/a") // removed between listing /w and listing /w/a
	got, err := Build(Input{Policy: wire.Policy{Workspace: []string{"/w"}, BlockedWrite: []string{"/w/a/blocked"}}}, f)
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{{Path: "/w", Access: ReadExec, Why: "workspace"}, {Path: "/w/b", Access: ReadWrite, Why: "workspace (split)"}}
	if !slices.Equal(got, want) {
		t.Errorf("rules:\n%s\nwant:\n%s", rulesText(got), rulesText(want))
	}
}

func TestAccessString(t *testing.T) {
	tests := []struct {
		a    Access
		want string
	}{
		{0, "none"},
		{ReadOnly, "read_file,read_dir"},
		{DeviceRW, "write_file,read_file,truncate"},
		{Handled | 1<<40, "execute,write_file,read_file,read_dir,remove_dir,remove_file,make_char,make_dir,make_reg,make_sock,make_fifo,make_block,make_sym,refer,truncate,ioctl_dev,unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.a.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOSFS(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mustMkdir(t, dir+"/d")
	mustWriteFile(t, dir+"/f")
	if err := symlinkTo(dir+"/d", dir+"/l"); err != nil {
		t.Fatal(err)
	}
	es, err := OSFS{}.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{"d", TypeDir}, {"f", TypeOther}, {"l", TypeSymlink}}
	if !slices.Equal(es, want) {
		t.Errorf("ReadDir = %v, want %v", es, want)
	}
	if c, err := (OSFS{}).Canonical(dir + "/l/new"); err != nil || c != dir+"/d/new" {
		t.Errorf("Canonical = %q, %v; want %q", c, err, dir+"/d/new")
	}
	if _, err := (OSFS{}).ReadDir(dir + "/missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir(missing) = %v, want ErrNotExist", err)
	}
}
