package seatbelt_test

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"pathgrant/devicepolicy"
	"pathgrant/sandbox"
	"pathgrant/sandbox/seatbelt"
	"pathgrant/wire"
)

var update = flag.Bool("update", false, "rewrite the golden profiles in testdata")

// fixture is one session's file tree under root (a t.TempDir, canonical):
// home/ws the workspace, home/Downloads, home/.ssh, sock the daemon's
// socket folder, run the command's XDG_RUNTIME_DIR (its session tmp dir
// is run/pathgrant-exec/s1).
type fixture struct {
	t    *testing.T
	root string
}

func (f fixture) path(rel string) string { return filepath.Join(f.root, rel) }

// file writes rel (and its folders) under root.
func (f fixture) file(rel, data string) {
	f.t.Helper()
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		f.t.Fatal(err)
	}
}

func (f fixture) dir(rel string) {
	f.t.Helper()
	if err := os.MkdirAll(f.path(rel), 0o700); err != nil {
		f.t.Fatal(err)
	}
}

// repo makes a git directory at rel/.git as git init leaves it, less
// what without names (config, hooks).
func (f fixture) repo(rel string, without ...string) {
	f.file(rel+"/.git/HEAD", "ref: refs/heads/main\n")
	f.dir(rel + "/.git/objects/info")
	f.dir(rel + "/.git/refs/heads")
	if !slices.Contains(without, "config") {
		f.file(rel+"/.git/config", "[core]\n\trepositoryformatversion = 0\n")
	}
	if !slices.Contains(without, "hooks") {
		f.file(rel+"/.git/hooks/pre-commit.sample", "#!/bin/sh\n")
	}
}

// goldenCase is one session: the tree, the grants, what its profile
// must allow and refuse beyond what every session's must (common).
type goldenCase struct {
	name   string
	build  func(f fixture, pol *wire.Policy, file *devicepolicy.Policy)
	checks func(f fixture) []check
}

// goldenCases are the sessions whose profiles testdata holds. Each golden
// file reads, group by group:
//
//   - (version 1), (deny default): what no rule allows is refused, so
//     the rest of home, /tmp, /Applications, other volumes are out.
//   - The system rules, the same in every file (TestSystem checks each
//     against what it must allow and refuse): fork, signals and process
//     information within the sandbox only; sysctl reads but not
//     kern.procargs (other processes' environment); named semaphores and
//     shared memory; five mach services (names, membership, resolver,
//     certificate trust) and no other (no pasteboard, open, keychain);
//     the network open (no namespace, unlike Linux), DNS through mDNSResponder's socket
//     alone of the system's sockets; /bin, /sbin, /usr, /System and three
//     /Library folders read and run, never written; /System/Volumes out
//     but its cryptexes; /private/etc and the few /private/var files read
//     only; the links at the top looked at; the devices by name, ptys the
//     command opens, ioctl on a terminal it holds.
//   - The folders above every place shown, as literals: stat only. /ROOT
//     and /ROOT/home are among them (the workspace's parents), never
//     /ROOT/home/.ssh or /ROOT/sock: their names cannot be looked at.
//   - The steps, in the view's order, each under ";; why: path". In every
//     file: the workspace and the session's tmp dir read, run, written,
//     hard-linked, sockets made and connected to, each a literal deny of
//     file-write-unlink on itself (a mount point: neither removed nor
//     renamed, in any case); the agents' folders, .mcp.json, .vscode and
//     .idea absent at the top and held ("protected (empty)": a deny of
//     every write, link and socket below, in any case); then the case's
//     own steps (below); then the other members matched anywhere refused
//     at the top ("protected (any case)"); last the socket's folder and
//     the socket hidden (nothing read, run, written or connected to).
//
// The comment of each case reviews what its own steps must do.
var goldenCases = []goldenCase{
	// The workspace alone. Steps: the session's tmp dir and the
	// workspace read, run and written, each unremovable itself (a mount
	// point on Linux); then every member of the protected set matched
	// anywhere (.claude … .ripgreprc) refused at the top of the
	// workspace, present or not, in any letter case; then the socket's
	// folder and the socket hidden. Must refuse: everything else under
	// home (secrets, .ssh, listing home), /tmp, the socket.
	{name: "workspace", build: func(f fixture, pol *wire.Policy, _ *devicepolicy.Policy) {
		f.file("home/ws/main.go", "package main\n")
	}},
	// A read grant of one file in Downloads: read, never written,
	// linked or run; the file next to it stays out.
	{name: "downloads-grant", build: func(f fixture, pol *wire.Policy, _ *devicepolicy.Policy) {
		f.file("home/Downloads/report.csv", "a,b\n")
		f.file("home/Downloads/other.csv", "c,d\n")
		pol.Grants = []wire.Scope{{Op: wire.OpRead, Path: f.path("home/Downloads/report.csv"), Kind: wire.KindFile}}
	}, checks: func(f fixture) []check {
		r := f.path("home/Downloads/report.csv")
		return []check{allow(read(r)), refuse(write(r)), refuse(unlink(r)), refuse(link(r)), refuse(run(r)),
			refuse(read(f.path("home/Downloads/other.csv"))), refuse(read(f.path("home/Downloads"))), allow(stat(f.path("home/Downloads")))}
	}},
	// A repository with its configuration: the folder on the way (.git)
	// is pinned (neither removed nor renamed, so the configuration cannot
	// be moved aside and replaced), config is read, never written,
	// removed or linked, in any case; what git writes in normal work
	// (index, objects, refs) is written.
	{name: "git-config-present", build: func(f fixture, _ *wire.Policy, _ *devicepolicy.Policy) {
		f.repo("home/ws", "hooks")
	}, checks: func(f fixture) []check {
		c := f.path("home/ws/.git/config")
		return []check{allow(read(c)), refuse(write(c)), refuse(unlink(c)), refuse(link(c)),
			refuse(write(f.path("home/ws/.GIT/CONFIG"))), refuse(unlink(f.path("home/ws/.git"))),
			allow(write(f.path("home/ws/.git/index"))), allow(create(f.path("home/ws/.git/objects/ab/cdef"))),
			refuse(create(f.path("home/ws/.git/hooks/pre-commit"))), allow(create(f.path("home/ws/.git/config.lock")))}
	}},
	// A repository without configuration: an absent config is not held
	// (git init writes it; the daemon's check after the command looks at
	// what a command left), so writing it is allowed, as in the Linux
	// view; the absent hooks folder is held (git finds nothing in an
	// empty one), which pins .git on the way.
	{name: "git-config-absent", build: func(f fixture, _ *wire.Policy, _ *devicepolicy.Policy) {
		f.repo("home/ws", "config", "hooks")
	}, checks: func(f fixture) []check {
		return []check{allow(create(f.path("home/ws/.git/config"))), refuse(unlink(f.path("home/ws/.git"))),
			refuse(create(f.path("home/ws/.git/hooks/pre-commit")))}
	}},
	// A repository with hooks: the hooks folder is read and run (git runs
	// hooks inside the sandbox), never added to.
	{name: "git-hooks-present", build: func(f fixture, _ *wire.Policy, _ *devicepolicy.Policy) {
		f.repo("home/ws", "config")
	}, checks: func(f fixture) []check {
		h := f.path("home/ws/.git/hooks")
		return []check{allow(run(h + "/pre-commit.sample")), refuse(create(h + "/pre-commit")), refuse(write(h + "/pre-commit.sample")),
			refuse(unlink(h)), refuse(create(f.path("home/ws/.git/HOOKS/post-checkout"))), refuse(unlink(f.path("home/ws/.git")))}
	}},
	// A repository without hooks: the absent folder's place is held, as
	// in the Linux view (an empty one runs nothing), so no hook can be
	// made in it.
	{name: "git-hooks-absent", build: func(f fixture, _ *wire.Policy, _ *devicepolicy.Policy) {
		f.repo("home/ws", "config", "hooks")
	}, checks: func(f fixture) []check {
		return []check{refuse(create(f.path("home/ws/.git/hooks/pre-commit")))}
	}},
	// .envrc present: read, not written; its own read-only step, and the
	// any-case refusal at the top.
	{name: "envrc-present", build: func(f fixture, _ *wire.Policy, _ *devicepolicy.Policy) {
		f.file("home/ws/.envrc", "export A=1\n")
	}, checks: func(f fixture) []check {
		e := f.path("home/ws/.envrc")
		return []check{allow(read(e)), refuse(write(e)), refuse(unlink(e)), refuse(write(f.path("home/ws/.EnvRC")))}
	}},
	// .envrc absent: it cannot be made at the top, in any case; below the
	// top it is sandbox/afterrun's, as in the Linux view.
	{name: "envrc-absent", build: func(f fixture, _ *wire.Policy, _ *devicepolicy.Policy) {
		f.dir("home/ws/sub")
	}, checks: func(f fixture) []check {
		return []check{refuse(create(f.path("home/ws/.envrc"))), refuse(create(f.path("home/ws/.ENVRC"))),
			allow(create(f.path("home/ws/sub/.envrc")))}
	}},
	// .vscode/settings.json present: the whole .vscode folder is read
	// only: settings.json is not written, tasks.json not made.
	{name: "vscode-settings-present", build: func(f fixture, _ *wire.Policy, _ *devicepolicy.Policy) {
		f.file("home/ws/.vscode/settings.json", "{}\n")
	}, checks: func(f fixture) []check {
		v := f.path("home/ws/.vscode")
		return []check{allow(read(v + "/settings.json")), refuse(write(v + "/settings.json")), refuse(create(v + "/tasks.json")),
			refuse(unlink(v)), refuse(create(f.path("home/ws/.VSCode/tasks.json")))}
	}},
	// .vscode absent: the view holds its place (a placeholder on Linux,
	// a refusal here: nothing is made in the workspace), so neither the
	// folder nor settings.json can be made, in any case.
	{name: "vscode-settings-absent", build: func(f fixture, _ *wire.Policy, _ *devicepolicy.Policy) {
		f.file("home/ws/README", "x\n")
	}, checks: func(f fixture) []check {
		return []check{refuse(create(f.path("home/ws/.vscode"))), refuse(create(f.path("home/ws/.vscode/settings.json"))),
			refuse(create(f.path("home/ws/.VSCODE/settings.json"))), allow(create(f.path("home/ws/vscode")))}
	}},
	// A main repository and a linked worktree of it, both in the
	// workspace (wt/.git: gitdir: ../main/.git/worktrees/wt). The main
	// repository's config and hooks, and the worktree's git directory's
	// commondir (where git reads configuration and hooks from) are read
	// only; the folders on the way (main, .git, worktrees, wt) pinned;
	// the worktree's HEAD and index written. The worktree's .git pointer
	// file is left to the guard and afterrun (pointers leading out of the
	// workspace), as in the Linux view.
	{name: "linked-worktree", build: func(f fixture, _ *wire.Policy, _ *devicepolicy.Policy) {
		f.repo("home/ws/main")
		f.file("home/ws/main/.git/worktrees/wt/HEAD", "ref: refs/heads/wt\n")
		f.file("home/ws/main/.git/worktrees/wt/commondir", "../..\n")
		f.file("home/ws/main/.git/worktrees/wt/gitdir", f.path("home/ws/wt/.git")+"\n")
		f.file("home/ws/wt/.git", "gitdir: ../main/.git/worktrees/wt\n")
		f.file("home/ws/wt/main.go", "package main\n")
	}, checks: func(f fixture) []check {
		wt := f.path("home/ws/main/.git/worktrees/wt")
		return []check{refuse(write(wt + "/commondir")), refuse(unlink(wt + "/commondir")), refuse(unlink(wt)),
			refuse(unlink(f.path("home/ws/main/.git/worktrees"))), refuse(unlink(f.path("home/ws/main"))),
			refuse(write(f.path("home/ws/main/.git/config"))), refuse(create(f.path("home/ws/main/.git/hooks/pre-commit"))),
			allow(write(wt + "/HEAD")), allow(create(wt + "/index")), allow(write(f.path("home/ws/wt/main.go"))),
			allow(write(f.path("home/ws/wt/.git"))), allow(create(f.path("home/ws/main/.git/worktrees/wt2/HEAD")))}
	}},
	// Device policy roots: a toolchain (read and run, not written) with a
	// cache inside it (written), and a toolchain named through a link
	// (its canonical folder read and run, the link's name looked at).
	{name: "toolchain-and-cache", build: func(f fixture, _ *wire.Policy, file *devicepolicy.Policy) {
		f.file("home/go/bin/go", "#!/bin/sh\n")
		f.dir("home/go/pkg/mod")
		f.file("opt/real-node/bin/node", "#!/bin/sh\n")
		if err := os.Symlink(f.path("opt/real-node"), f.path("home/node")); err != nil {
			f.t.Fatal(err)
		}
		file.Toolchains = []string{f.path("home/go"), f.path("home/node")}
		file.Caches = []string{f.path("home/go/pkg/mod")}
	}, checks: func(f fixture) []check {
		return []check{allow(run(f.path("home/go/bin/go"))), refuse(write(f.path("home/go/bin/go"))),
			allow(create(f.path("home/go/pkg/mod/x@v1/a.go"))), refuse(unlink(f.path("home/go/pkg/mod"))),
			allow(run(f.path("opt/real-node/bin/node"))), refuse(write(f.path("opt/real-node/bin/node"))),
			allow(stat(f.path("home/node"))), refuse(read(f.path("home/other")))}
	}},
}

// common are what every session's profile must allow and refuse: the
// workspace read, run and written but not removed; the tmp dir written;
// the rest of home, /tmp and the daemon's socket out of reach; the top of
// the workspace refusing the protected members matched anywhere.
func common(f fixture) []check {
	ws, tmp, sock := f.path("home/ws"), f.path("run/pathgrant-exec/s1"), f.path("sock/pathgrant.sock")
	return []check{
		allow(read(ws + "/main.go")), allow(write(ws + "/main.go")), allow(create(ws + "/new.txt")), allow(run(ws + "/build.sh")),
		allow(unlink(ws + "/new.txt")), allow(connect(ws + "/dev.sock")), allow(bind(ws + "/dev.sock")),
		refuse(unlink(ws)), refuse(create(ws + "2")),
		allow(create(tmp + "/x")), allow(read(tmp + "/x")), refuse(unlink(tmp)),
		allow(stat(f.path("home"))), refuse(read(f.path("home"))), refuse(read(f.path("home/secret.txt"))),
		refuse(read(f.path("home/.ssh/id_rsa"))), refuse(stat(f.path("home/.ssh"))), refuse(create(f.path("home/x"))),
		refuse(connect(sock)), refuse(read(sock)), refuse(stat(f.path("sock"))), refuse(read(f.path("run/other"))),
		refuse(read("/private/tmp/x")), refuse(create("/private/tmp/x")),
		refuse(create(ws + "/.mcp.json")), refuse(create(ws + "/.claude/settings.json")), refuse(write(ws + "/.Claude/settings.local.json")),
		refuse(create(ws + "/.bashrc")), refuse(create(ws + "/.gitmodules")), allow(create(ws + "/.gitignore")),
		allow(run("/bin/bash")), allow(outbound()),
	}
}

// TestGolden: each session's profile, from the same policy the Linux
// view is built from, is its golden file (go test -update rewrites them),
// the temporary folder written /ROOT; and it allows and refuses what the
// session must (the evaluator).
func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			f := fixture{t: t, root: root}
			f.dir("home/ws")
			f.dir("run")
			f.dir("sock")
			pol := wire.Policy{Session: "s1", Workspace: []string{f.path("home/ws")}}
			file := devicepolicy.Policy{Confinement: true}
			tc.build(f, &pol, &file)
			profile := launchProfile(t, f, pol, file)
			compareGolden(t, tc.name, normalise(t, profile, root))
			checks := common(f)
			if tc.checks != nil {
				checks = append(checks, tc.checks(f)...)
			}
			expect(t, profile, checks)
		})
	}
}

// launchProfile is the profile the daemon's Launcher prepares for a
// command of the session on macOS.
func launchProfile(t *testing.T, f fixture, pol wire.Policy, file devicepolicy.Policy) string {
	t.Helper()
	daemonEnv := map[string]string{}
	l := sandbox.Launcher{Confinement: sandbox.Confinement{Level: sandbox.LevelSeatbelt, SandboxExec: wire.SandboxExec},
		Getenv: func(k string) string { return daemonEnv[k] }, Home: f.path("home"), Socket: f.path("sock/pathgrant.sock")}
	req := wire.ExecRequest{Path: "/bin/bash", Argv: []string{"bash", "-c", "make"},
		Env: []string{"HOME=" + f.path("home"), "XDG_RUNTIME_DIR=" + f.path("run")}}
	launched, err := l.Launch(pol, file, req)
	if err != nil {
		t.Fatal(err)
	}
	p := launched.Prepared
	if p.Level != wire.LevelSeatbelt || p.Seatbelt == "" || p.TmpDir != f.path("run/pathgrant-exec/s1") ||
		len(p.Job) > 0 || len(p.Inner) > 0 || p.Bwrap != "" || len(p.Placeholders) > 0 {
		t.Fatalf("prepared %+v: want a Seatbelt profile, the session's tmp dir, and no inner step, job, bubblewrap or placeholder", p)
	}
	return p.Seatbelt
}

// normalise writes the temporary root as /ROOT, in the paths as spelt
// and in the folded expressions, and its folder (a name of the test's
// own, among the folders looked at) as /PARENT.
func normalise(t *testing.T, profile, root string) string {
	t.Helper()
	folded, err := seatbelt.Folded(root)
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReplacer(root, "/ROOT", folded, "/ROOT", filepath.Dir(root), "/PARENT").Replace(profile)
}

// compareGolden compares got with testdata/NAME.sb, or writes it there
// with -update. The files are Linux's: elsewhere the temporary folder's
// own parents (/private/var/folders/… on macOS) are among the folders
// looked at, so only the evaluator's checks run.
func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Logf("golden profiles are compared on Linux only")
		return
	}
	path := filepath.Join("testdata", name+".sb")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("profile differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}
