package sandbox

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pathgrant/guard"
	"pathgrant/wire"
)

// viewFake is fakeFS with the entry types BuildView asks for.
type viewFake struct{ *fakeFS }

func (f viewFake) Type(p string) (EntryType, error) {
	if p == "/" {
		return TypeDir, nil
	}
	for _, e := range f.entries[filepath.Dir(p)] {
		if e.Name == filepath.Base(p) {
			return e.Type, nil
		}
	}
	return TypeOther, fs.ErrNotExist
}

// privateCases are the places a private root's rule could reach: with
// want, the private roots that keep their read-write rule.
var privateCases = []struct {
	name string
	fs   *fakeFS
	in   Input
	want []string
}{{
	name: "nothing bound beneath: both private",
	fs:   newFakeFS("/w/main.go", "/run/user/1/pathgrant-exec/s/"),
	in:   Input{Policy: wire.Policy{Workspace: []string{"/w"}}, TmpDir: "/run/user/1/pathgrant-exec/s"},
	want: []string{"/tmp", "/dev/shm"},
}, {
	name: "a workspace under /tmp the mounts hold whole",
	fs:   newFakeFS("/tmp/proj/main.go", "/tmp/proj/.claude/settings.json"),
	in: Input{Policy: wire.Policy{Workspace: []string{"/tmp/proj"}, Protected: []string{"/tmp/proj/.claude/settings.json"}},
		ByMount: []string{"/tmp/proj/.claude/settings.json"}},
	want: []string{"/tmp", "/dev/shm"},
}, {
	name: "a workspace under /tmp with a linked .claude at its top",
	fs:   newFakeFS("/tmp/proj/main.go", "/tmp/proj/.claude@/home/u/dotfiles/claude", "/home/u/dotfiles/claude/settings.json"),
	in:   Input{Policy: wire.Policy{Workspace: []string{"/tmp/proj"}, Protected: []string{"/tmp/proj/.claude"}}},
	want: []string{"/dev/shm"},
}, {
	name: "a workspace under /tmp with a blocked-write folder the rules keep",
	fs:   newFakeFS("/tmp/proj/main.go", "/tmp/proj/secrets/key"),
	in:   Input{Policy: wire.Policy{Workspace: []string{"/tmp/proj"}, BlockedWrite: []string{"/tmp/proj/secrets"}}},
	want: []string{"/dev/shm"},
}, {
	name: "an approvable root under /tmp",
	fs:   newFakeFS("/w/", "/tmp/h/Downloads/a.csv"),
	in:   Input{Policy: wire.Policy{Workspace: []string{"/w"}}, Approvable: []string{"/tmp/h/Downloads"}},
	want: []string{"/dev/shm"},
}, {
	name: "a file grant under an approvable root under /tmp",
	fs:   newFakeFS("/w/", "/tmp/h/Downloads/a.csv"),
	in: Input{Policy: wire.Policy{Workspace: []string{"/w"}, Grants: []guard.Scope{{Op: guard.OpRead, Path: "/tmp/h/Downloads/a.csv", Kind: guard.KindFile}}},
		Approvable: []string{"/tmp/h/Downloads"}},
	want: []string{"/dev/shm"},
}, {
	name: "a file grant under /tmp alone",
	fs:   newFakeFS("/w/", "/tmp/h/a.csv"),
	in:   Input{Policy: wire.Policy{Workspace: []string{"/w"}, Grants: []guard.Scope{{Op: guard.OpRead, Path: "/tmp/h/a.csv", Kind: guard.KindFile}}}},
	want: []string{"/tmp", "/dev/shm"},
}, {
	name: "a file grant naming a folder under /tmp",
	fs:   newFakeFS("/w/", "/tmp/h/d/a.csv"),
	in:   Input{Policy: wire.Policy{Workspace: []string{"/w"}, Grants: []guard.Scope{{Op: guard.OpRead, Path: "/tmp/h/d", Kind: guard.KindFile}}}},
	want: []string{"/dev/shm"},
}, {
	name: "a folder grant under /tmp around a protected path",
	fs:   newFakeFS("/w/", "/tmp/h/d/a.csv", "/tmp/h/d/.envrc"),
	in: Input{Policy: wire.Policy{Workspace: []string{"/w"}, Protected: []string{"/tmp/h/d/.envrc"},
		Grants: []guard.Scope{{Op: guard.OpRead, Path: "/tmp/h/d", Kind: guard.KindFolder}}}},
	want: []string{"/dev/shm"},
}, {
	name: "read-only root, toolchain, cache and tmp dir under /tmp",
	fs:   newFakeFS("/w/", "/tmp/ro/x", "/tmp/tc/bin/go", "/tmp/cache/x", "/tmp/pathgrant-exec-0/s/"),
	in: Input{Policy: wire.Policy{Workspace: []string{"/w"}, ReadOnly: []string{"/tmp/ro"}}, TmpDir: "/tmp/pathgrant-exec-0/s",
		Device: Device{Toolchains: []string{"/tmp/tc"}, Caches: []string{"/tmp/cache"}}},
	want: []string{"/tmp", "/dev/shm"},
}, {
	name: "a workspace under /tmp reached through a link",
	fs:   newFakeFS("/tmp/link@/tmp/real", "/tmp/real/main.go"),
	in:   Input{Policy: wire.Policy{Workspace: []string{"/tmp/link"}}},
	want: []string{"/dev/shm"},
}, {
	name: "a workspace under /dev/shm with a blocked-write folder",
	fs:   newFakeFS("/dev/shm/w/main.go", "/dev/shm/w/secrets/key"),
	in:   Input{Policy: wire.Policy{Workspace: []string{"/dev/shm/w"}, BlockedWrite: []string{"/dev/shm/w/secrets"}}},
	want: []string{"/tmp"},
}, {
	name: "a workspace that is /tmp itself, split",
	fs:   newFakeFS("/tmp/main.go", "/tmp/secrets/key"),
	in:   Input{Policy: wire.Policy{Workspace: []string{"/tmp"}, BlockedWrite: []string{"/tmp/secrets"}}},
	want: []string{"/dev/shm"},
}}

// TestPrivateRoots: a private root keeps its read-write rule only where
// the rule widens nothing bound beneath it; elsewhere it gets no rule at
// all, and the binds beneath keep exactly their own rules.
func TestPrivateRoots(t *testing.T) {
	for _, tt := range privateCases {
		t.Run(tt.name, func(t *testing.T) { privateRootsCase(t, tt.fs, tt.in, tt.want, false) })
		t.Run(tt.name+", entry types known", func(t *testing.T) { privateRootsCase(t, tt.fs, tt.in, tt.want, true) })
	}
}

// privateRootsCase builds in's rules on fsys (with its entry types when
// typed) and holds them to want, the private roots that keep their rule.
func privateRootsCase(t *testing.T, fsys *fakeFS, in Input, want []string, typed bool) {
	var b FS = fsys
	if typed {
		b = viewFake{fsys}
	}
	in.PrivateTmp = true
	rs, err := Build(in, b)
	if err != nil {
		t.Fatal(err)
	}
	in.PrivateTmp = false
	without, err := Build(in, b)
	if err != nil {
		t.Fatal(err)
	}
	private := func(r Rule) bool { return slices.Contains(PrivateRoots, r.Path) && r.Why == "private "+r.Path }
	var got []string
	for _, r := range rs {
		if private(r) {
			if r.Access != ReadWrite || r.File {
				t.Errorf("private root rule %v", r)
			}
			got = append(got, r.Path)
		}
	}
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("private roots with a rule: %q, want %q\nrules: %v", got, want, rs)
	}
	rest := slices.DeleteFunc(slices.Clone(rs), private)
	if !slices.Equal(rest, without) {
		t.Errorf("the other rules changed:\n%v\nwant\n%v", rest, without)
	}
}

// TestPrivateRootsSeeEveryBind: every tree the view binds beneath a
// private root is one the rules weigh (bound), or lies inside a write
// area they weigh, or is one of the view's own mounts that hold nothing
// a rule could widen. A new kind of bind the rules do not weigh fails
// here.
func TestPrivateRootsSeeEveryBind(t *testing.T) {
	own := []string{"pathgrant", "pathgrant-confine", "ssh agent", "hidden", "protected (empty)"}
	for _, tt := range privateCases {
		t.Run(tt.name, func(t *testing.T) {
			view, err := BuildView(tt.in, ViewConfig{EmptyDir: "/run/pathgrant/pathgrant-empty"}, viewFake{tt.fs})
			if err != nil {
				t.Fatal(err)
			}
			trees := (&builder{fs: tt.fs}).bound(tt.in)
			for _, m := range view.Mounts {
				if !strings.Contains(m.Op, "bind") || slices.Contains(own, m.Why) ||
					!slices.ContainsFunc(PrivateRoots, func(r string) bool { return guard.Within(r, m.Dst) }) {
					continue
				}
				weighed := slices.ContainsFunc(trees, func(b bound) bool {
					return b.path == m.Dst || b.need == ReadWrite && guard.Within(b.path, m.Dst)
				})
				if !weighed {
					t.Errorf("%v is bound beneath a private root and not weighed by the rules (%v)", m, trees)
				}
			}
		})
	}
}
