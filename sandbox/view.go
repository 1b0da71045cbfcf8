package sandbox

import (
	"cmp"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"pathgrant/guard"
	"pathgrant/guard/protected"
)

// Mount is one step of a confined command's mount view, as a bubblewrap
// option: a later mount covers an earlier one.
type Mount struct {
	// Op is the bubblewrap option: --ro-bind, --bind (and their -try
	// forms, for paths that may be missing), --tmpfs, --remount-ro,
	// --symlink, --proc, --dev.
	Op string `json:"op"`
	// Src is the source of a bind or the target of a symlink.
	Src string `json:"src,omitempty"`
	// Dst is where it appears in the view.
	Dst string `json:"dst"`
	// Why names the part of the policy the mount comes from.
	Why string `json:"why"`
}

// Args is the mount as bubblewrap arguments.
func (m Mount) Args() []string {
	if m.Src == "" {
		return []string{m.Op, m.Dst}
	}
	return []string{m.Op, m.Src, m.Dst}
}

// ViewConfig is what a view needs beyond the policy.
type ViewConfig struct {
	// Exe is the pathgrant binary, bound read-only so the view can run
	// its inner step (Landlock, then the command).
	Exe string
	// Confine is the lean inner step's binary (pathgrant-confine), bound
	// read-only when exec runs it instead of `pathgrant exec --inner`.
	Confine string
	// Hidden are folders and sockets no command may see (pathgrant's own
	// state, the desktop's buses, terminal multiplexers, credentials).
	// The view shows none of them unless a bound tree holds one; then an
	// empty read-only folder (or /dev/null for a file) covers it.
	Hidden []string
	// SSHAgentSocket is bound when the device policy allows the agent.
	SSHAgentSocket string
	// EmptyDir is an empty folder no command can write (EmptyDirIn):
	// when set, the place of an absent protected path is held by binding
	// it read-only, one mount, instead of a new tmpfs remounted read-only,
	// two, each of which costs bubblewrap far more.
	EmptyDir string
}

// View is a confined command's file system: what bubblewrap mounts.
type View struct {
	Mounts []Mount
	// ByMount are the blocked-write and protected paths the view keeps
	// read-only itself (Input.ByMount). The others, which it cannot pin,
	// are left to the Landlock rules.
	ByMount []string
	// Placeholders are the empty files and folders bubblewrap will create
	// in write areas as mount points holding the place of absent
	// protected paths. They appear in the person's folder while the
	// command runs; the daemon's check after the command removes them
	// (afterrun.RemovePlaceholders).
	Placeholders []string
}

// ViewFS is the view of the file system BuildView needs: FS and the type
// of one path, links not followed (fs.ErrNotExist when missing).
type ViewFS interface {
	FS
	Type(path string) (EntryType, error)
}

// Namespaces are the bubblewrap options every confined command runs with:
// no System V IPC or process ids shared with the outside (so nothing
// outside can be signalled or traced), killed when exec's process dies,
// and a new terminal session (no TIOCSTI into the user's terminal).
var Namespaces = []string{"--unshare-ipc", "--unshare-pid", "--die-with-parent", "--new-session"}

// Options are bubblewrap's options for the view: the namespaces and the
// mounts. As root bubblewrap would keep every capability, so they are
// dropped.
func (v View) Options(root bool) []string {
	args := slices.Clone(Namespaces)
	if root {
		args = append(args, "--cap-drop", "ALL")
	}
	for _, m := range v.Mounts {
		args = append(args, m.Args()...)
	}
	return args
}

// BuildView returns the view for in: the system folders read-only, a new
// /proc and /dev, a private /tmp; the read-only roots, read grants,
// toolchains and read-only files read-only; the caches, workspace roots
// and session tmp dir read-write; then what must stay hidden covered, and
// the blocked-write and protected paths in write areas read-only (Protect).
// Everything else is not there at all.
func BuildView(in Input, cfg ViewConfig, fsys ViewFS) (View, error) {
	if err := checkAbsolute(in.Policy, in); err != nil {
		return View{}, err
	}
	vb := &viewBuilder{fs: fsys, points: map[string]bool{}, empty: cfg.EmptyDir}
	vb.system()
	vb.policy(in, cfg)
	vb.emitBinds()
	vb.hide(cfg.Hidden)
	p := in.Policy
	for _, area := range vb.writeAreas() {
		if t, err := fsys.Type(area); err != nil || t != TypeDir {
			continue
		}
		var own []string
		if slices.ContainsFunc(p.Workspace, func(w string) bool { return filepath.Clean(w) == area }) {
			own = ownProtected(area, fsys, in.Device.AllowProtected)
		}
		noWrite := vb.canonicalAll(slices.Concat(p.Protected, p.BlockedWrite, own))
		for _, path := range noWrite {
			switch {
			case path == area || !guard.Within(area, path):
			case insideAny(vb.readOnly, path) || vb.protect(area, path):
				vb.byMount = append(vb.byMount, path)
			}
		}
	}
	slices.Sort(vb.byMount)
	slices.Sort(vb.placeholders)
	return View{Mounts: uncovered(vb.mounts), ByMount: slices.Compact(vb.byMount), Placeholders: slices.Compact(vb.placeholders)}, nil
}

// covering are the mounts that always replace what is at their place and
// below it (the -try forms may do nothing; --remount-ro and --symlink
// replace nothing).
var covering = []string{"--ro-bind", "--bind", "--tmpfs", "--proc", "--dev"}

// uncovered drops each mount a later one hides entirely (at its place or
// above): bubblewrap would make it only to cover it, and each mount costs
// bubblewrap time. The view is the same, mount for mount.
func uncovered(ms []Mount) []Mount {
	out := make([]Mount, 0, len(ms))
	for i, m := range ms {
		hidden := slices.ContainsFunc(ms[i+1:], func(l Mount) bool {
			return slices.Contains(covering, l.Op) && guard.Within(l.Dst, m.Dst)
		})
		if !hidden {
			out = append(out, m)
		}
	}
	return out
}

type bind struct {
	path string
	rw   bool
	why  string
	src  string // where it is bound from, when not path itself
}

type viewBuilder struct {
	fs      ViewFS
	mounts  []Mount
	binds   []bind
	links   []Mount
	byMount []string
	// points are the mount points protect made, true when read-only: a
	// later pin never covers an earlier read-only mount.
	points map[string]bool
	// readOnly are the read-only mount points protect made.
	readOnly []string
	// placeholders are the mount points protect made where nothing was.
	placeholders []string
	empty        string // ViewConfig.EmptyDir
}

// placeholder holds the place of the absent path p with an empty
// read-only folder.
func (vb *viewBuilder) placeholder(p string) []Mount {
	vb.placeholders = append(vb.placeholders, p)
	if vb.empty != "" {
		return []Mount{{Op: "--ro-bind", Src: vb.empty, Dst: p, Why: "protected (empty)"}}
	}
	return []Mount{{Op: "--tmpfs", Dst: p, Why: "protected (empty)"}, {Op: "--remount-ro", Dst: p, Why: "protected (empty)"}}
}

func (vb *viewBuilder) add(ms ...Mount) { vb.mounts = append(vb.mounts, ms...) }

// addPoints adds the mounts whose mount points are new, or that make a
// pinned (read-write) mount point read-only.
func (vb *viewBuilder) addPoints(ms []Mount) {
	for _, m := range ms {
		prev, seen := vb.points[m.Dst]
		readOnly := m.Op == "--ro-bind" || m.Op == "--remount-ro"
		if seen && (prev || !readOnly) {
			continue
		}
		vb.add(m)
		vb.points[m.Dst] = prev || readOnly
		if readOnly {
			vb.readOnly = append(vb.readOnly, m.Dst)
		}
	}
}

// system mounts the folders programs run from (a folder that is a link
// on this machine, like /bin -> usr/bin, becomes the same link), /etc,
// and new /proc, /dev and /tmp.
func (vb *viewBuilder) system() {
	for _, p := range systemTrees {
		switch t, err := vb.fs.Type(p); {
		case err != nil:
		case t == TypeSymlink:
			if c, err := vb.fs.Canonical(p); err == nil {
				vb.add(Mount{Op: "--symlink", Src: c, Dst: p, Why: "system"})
			}
		default:
			vb.add(Mount{Op: "--ro-bind", Src: p, Dst: p, Why: "system"})
		}
	}
	vb.add(Mount{Op: "--ro-bind", Src: "/etc", Dst: "/etc", Why: "system"})
	// /etc/resolv.conf often links into /run, which is not in the view.
	if c, err := vb.fs.Canonical("/etc/resolv.conf"); err == nil && !guard.Within("/etc", c) {
		vb.add(Mount{Op: "--ro-bind-try", Src: c, Dst: c, Why: "name resolution"})
	}
	vb.add(Mount{Op: "--proc", Dst: "/proc", Why: "system"}, Mount{Op: "--dev", Dst: "/dev", Why: "system"},
		Mount{Op: "--tmpfs", Dst: "/tmp", Why: "private /tmp"})
}

// policy collects the policy's trees. A grant whose path is no longer
// canonical (a link was swapped in since it was approved) is left out,
// as the rules leave it out: bubblewrap would follow the link.
func (vb *viewBuilder) policy(in Input, cfg ViewConfig) {
	p := in.Policy
	for _, r := range p.ReadOnly {
		vb.binds = append(vb.binds, bind{path: filepath.Clean(r), rw: false, why: "read-only root"})
	}
	for _, g := range slices.Concat(p.Grants, in.Used) {
		path := filepath.Clean(g.Path)
		if c, err := vb.fs.Canonical(path); g.Op == guard.OpRead && err == nil && c == path && !in.served(path) {
			vb.binds = append(vb.binds, bind{path: path, rw: false, why: "grant"})
		}
	}
	d := in.Device
	if len(in.ServedFrom) == len(in.Approvable) && len(in.ServedFrom) > 0 {
		for i, r := range in.Approvable {
			vb.binds = append(vb.binds, bind{path: r, why: "approvable (served by pathgrant)", src: in.ServedFrom[i]})
		}
	} else {
		vb.device(in.Approvable, false, "approvable (names only)")
	}
	vb.device(d.Toolchains, false, "toolchain")
	vb.device(d.ReadOnlyFiles, false, "read-only file")
	vb.device(d.Caches, true, "cache")
	for _, w := range p.Workspace {
		vb.binds = append(vb.binds, bind{path: filepath.Clean(w), rw: true, why: "workspace"})
	}
	if in.TmpDir != "" {
		vb.binds = append(vb.binds, bind{path: filepath.Clean(in.TmpDir), rw: true, why: "tmp"})
	}
	if cfg.Exe != "" {
		vb.binds = append(vb.binds, bind{path: cfg.Exe, rw: false, why: "pathgrant"})
	}
	if cfg.Confine != "" {
		vb.binds = append(vb.binds, bind{path: cfg.Confine, rw: false, why: "pathgrant-confine"})
	}
	if d.SSHAgent && cfg.SSHAgentSocket != "" {
		vb.binds = append(vb.binds, bind{path: cfg.SSHAgentSocket, rw: true, why: "ssh agent"})
	}
}

// device binds device policy roots at their canonical paths, and links
// the configured path there when it differs.
func (vb *viewBuilder) device(paths []string, rw bool, why string) {
	for _, p := range paths {
		c, err := vb.fs.Canonical(p)
		if err != nil {
			continue
		}
		if _, err := vb.fs.Type(c); err != nil {
			continue // not on this machine: nothing to mount
		}
		vb.binds = append(vb.binds, bind{path: c, rw: rw, why: why})
		if c != filepath.Clean(p) {
			vb.links = append(vb.links, Mount{Op: "--symlink", Src: c, Dst: filepath.Clean(p), Why: why})
		}
	}
}

// emitBinds mounts the collected trees, parents before children so a
// narrower mount lands on top. A read-only tree inside a read-write one is
// left to the wider one: access adds up, as with the rules. A link is
// made only where no bound tree would receive it.
func (vb *viewBuilder) emitBinds() {
	slices.SortStableFunc(vb.binds, func(a, b bind) int { return cmp.Compare(a.path, b.path) })
	for i, b := range vb.binds {
		inRW := slices.ContainsFunc(vb.binds, func(o bind) bool { return o.rw && guard.Within(o.path, b.path) })
		switch {
		case i > 0 && vb.binds[i-1].path == b.path && (vb.binds[i-1].rw || !b.rw):
		case b.rw:
			vb.add(Mount{Op: "--bind-try", Src: b.path, Dst: b.path, Why: b.why})
		case b.src != "" && !inRW:
			vb.add(Mount{Op: "--ro-bind", Src: b.src, Dst: b.path, Why: b.why}) // never silently missing
		case !inRW:
			vb.add(Mount{Op: "--ro-bind-try", Src: b.path, Dst: b.path, Why: b.why})
		}
	}
	for _, l := range vb.links {
		if !vb.bound(filepath.Dir(l.Dst)) && !vb.bound(l.Dst) {
			vb.add(l)
		}
	}
}

// bound reports whether a bound tree shows p.
func (vb *viewBuilder) bound(p string) bool {
	return slices.ContainsFunc(vb.binds, func(b bind) bool { return guard.Within(b.path, p) })
}

// writeAreas are the read-write trees.
func (vb *viewBuilder) writeAreas() []string {
	var out []string
	for _, b := range vb.binds {
		if b.rw && b.why != "ssh agent" && !slices.Contains(out, b.path) {
			out = append(out, b.path)
		}
	}
	return out
}

// hide covers each hidden path a bound tree shows (and that holds no
// bound tree itself): a folder with an empty read-only one, anything else
// with /dev/null.
func (vb *viewBuilder) hide(hidden []string) {
	for _, h := range hidden {
		h = filepath.Clean(h)
		inside := slices.ContainsFunc(vb.binds, func(b bind) bool { return b.path != h && guard.Within(b.path, h) })
		holds := slices.ContainsFunc(vb.binds, func(b bind) bool { return guard.Within(h, b.path) })
		if !inside || holds {
			continue
		}
		switch t, err := vb.fs.Type(h); {
		case err != nil:
		case t == TypeDir:
			vb.add(Mount{Op: "--tmpfs", Dst: h, Why: "hidden"}, Mount{Op: "--remount-ro", Dst: h, Why: "hidden"})
		default:
			vb.add(Mount{Op: "--ro-bind", Src: "/dev/null", Dst: h, Why: "hidden"})
		}
	}
}

// canonicalAll is builder.canonicalAll for the view.
func (vb *viewBuilder) canonicalAll(paths []string) []string {
	return (&builder{fs: vb.fs}).canonicalAll(paths)
}

// protect makes path, inside the write area, read-only and impossible to
// create, and pins every folder on the way as a mount point (a mount
// point cannot be renamed or removed, so nothing can move the protected
// path aside and put a new one in its place). It reports false when it
// cannot: then the Landlock rules keep path out of the area as before.
//
//   - path exists: bound read-only onto itself;
//   - a folder on the way is missing: an empty read-only folder is mounted
//     there (bubblewrap creates the empty mount point in the workspace: a
//     placeholder);
//   - a git member missing in a git directory: an empty read-only folder
//     where git finds nothing in it (heldAbsent: hooks, info, an unread
//     config.worktree), else nothing (or for .git itself at the top of
//     the area), since holding its place would break git (an empty
//     commondir or rebase-merge folder is read as one); a repository
//     changed or made during the command is the daemon's check's
//     (sandbox/afterrun);
//   - path itself is missing and is a file (a member of the protected set
//     that is one, or a name with a dot past its first character, like
//     settings.json): below the top of the area its folder is made
//     read-only, since an empty folder in its place would break the
//     program reading it; at the top, where that would forbid creating
//     anything in the workspace, an empty read-only folder holds its
//     place too (a placeholder): writing there fails (EISDIR), and git
//     ignores an empty folder, where a placeholder file would be taken in
//     by `git add -A` (and /dev/null, a device, makes it fail);
//   - a link, or a file, on the way: its folder is made read-only; at the
//     top of the write area this is not possible.
func (vb *viewBuilder) protect(area, path string) bool {
	rel, _ := filepath.Rel(area, path)
	cur := area
	var pins []Mount
	for comp := range strings.SplitSeq(rel, "/") {
		next := filepath.Join(cur, comp)
		t, err := vb.fs.Type(next)
		last := next == path
		missing := errors.Is(err, fs.ErrNotExist)
		var m []Mount
		switch {
		case missing && last && isGitMember(comp) && heldAbsent(cur, comp):
			m = vb.placeholder(next)
		case missing && ((cur == area && protected.IsGitName(comp)) || (protected.IsGitName(filepath.Base(cur)) && isGitMember(comp))):
			return true
		case missing && (!last || !fileLike(comp) || cur == area):
			m = vb.placeholder(next)
		case err == nil && last && t != TypeSymlink:
			m = []Mount{{Op: "--ro-bind", Src: next, Dst: next, Why: "protected"}}
		case err == nil && t == TypeDir:
			pins = append(pins, Mount{Op: "--bind", Src: next, Dst: next, Why: "pinned"})
			cur = next
			continue
		case cur == area || (err != nil && !missing):
			return false // at the top of the area, or unreadable
		default: // missing file, a link or a file on the way: its folder read-only
			pins = pins[:len(pins)-1]
			m = []Mount{{Op: "--ro-bind", Src: cur, Dst: cur, Why: "protected (folder)"}}
		}
		vb.addPoints(append(pins, m...))
		return true
	}
	return false
}

// fileLike reports whether a missing name is taken to be a file: a member
// of the protected set says; otherwise a dot past the first character.
func fileLike(name string) bool {
	if m, ok := protected.AnywhereNamed(name); ok {
		return !m.Dir
	}
	if m, ok := protected.GitNamed(name); ok {
		return !m.Dir
	}
	return strings.Contains(name[1:], ".")
}

func isGitMember(name string) bool {
	_, ok := protected.GitNamed(name)
	return ok
}
