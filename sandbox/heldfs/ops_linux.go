//go:build linux

package heldfs

import (
	"errors"
	"strconv"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// beneath resolves a path beneath a pinned root and no further: no link
// followed, none of /proc's magic links, nothing above the root.
const beneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// Lookup answers a name: a registered command's token (its own sandbox
// only), a root's index, or a name beneath a root, with the real file's
// metadata. Tokens and roots are never cached by the kernel, so every
// walk into them from outside a view comes here and is refused.
func (fs *fileSystem) Lookup(cancel <-chan struct{}, h *fuse.InHeader, name string, out *fuse.EntryOut) fuse.Status {
	parent := fs.node(h.NodeId)
	if parent == nil {
		return fuse.ENOENT
	}
	switch parent.kind {
	case kindTop:
		fs.mu.Lock()
		c := fs.cmds[name]
		fs.mu.Unlock()
		if c == nil || !c.members.admits(h.Pid) {
			return fuse.EACCES
		}
		out.NodeId = c.node.id
		out.Attr = syntheticDir(c.node.id)
		return fuse.OK
	case kindCommand:
		c := parent.cmd
		i, err := strconv.Atoi(name)
		if !c.members.admits(h.Pid) {
			return fuse.EACCES
		}
		if err != nil || i < 0 || i >= len(c.Roots) || strconv.Itoa(i) != name {
			return fuse.ENOENT
		}
		return fs.enter(c, i, "", out, false)
	}
	c := parent.cmd
	if !c.members.admits(h.Pid) {
		return fuse.EACCES
	}
	return fs.enter(c, parent.root, join(parent.rel, name), out, true)
}

// enter looks up c's root/rel and answers it as out; cached says the
// kernel may keep the name a while (a token's root is looked up again at
// every walk from outside a view, so every such walk is checked here),
// its metadata it always may.
func (fs *fileSystem) enter(c *command, root int, rel string, out *fuse.EntryOut, cached bool) fuse.Status {
	var st unix.Stat_t
	if s := c.stat(root, rel, &st); s != fuse.OK {
		return s
	}
	n, err := fs.child(c, root, rel, &st)
	if err != nil {
		c.say(c.abs(root, rel), "pathgrant: "+c.abs(root, rel)+": not served: "+err.Error())
		return fuse.Status(unix.ENFILE)
	}
	out.NodeId = n.id
	fromStat(&out.Attr, &st)
	out.SetAttrTimeout(attrTimeout)
	if cached {
		out.SetEntryTimeout(attrTimeout)
	}
	return fuse.OK
}

// GetAttr answers a node's metadata, read again from the real file, which
// must still be the one looked up.
func (fs *fileSystem) GetAttr(cancel <-chan struct{}, in *fuse.GetAttrIn, out *fuse.AttrOut) fuse.Status {
	n := fs.node(in.NodeId)
	switch {
	case n == nil:
		return fuse.ENOENT
	case n.kind == kindTop:
		out.Attr = syntheticDir(n.id)
		return fuse.OK
	case !n.cmd.members.admits(in.Pid):
		return fuse.EACCES
	case n.kind == kindCommand:
		out.Attr = syntheticDir(n.id)
		return fuse.OK
	}
	var st unix.Stat_t
	if s := n.cmd.stat(n.root, n.rel, &st); s != fuse.OK {
		return s
	}
	if st.Dev != n.dev || st.Ino != n.ino {
		return fuse.Status(unix.ESTALE)
	}
	fromStat(&out.Attr, &st)
	out.SetTimeout(attrTimeout)
	return fuse.OK
}

// Readlink answers a link's text: it is the kernel, inside the view, that
// follows it.
func (fs *fileSystem) Readlink(cancel <-chan struct{}, h *fuse.InHeader) ([]byte, fuse.Status) {
	n := fs.node(h.NodeId)
	if n == nil || n.kind != kindChild || !n.cmd.members.admits(h.Pid) {
		return nil, fuse.EACCES
	}
	var out []byte
	s := n.cmd.withPath(n.root, n.rel, unix.O_PATH|unix.O_NOFOLLOW, func(fd int, st *unix.Stat_t) fuse.Status {
		if st.Dev != n.dev || st.Ino != n.ino || st.Mode&unix.S_IFMT != unix.S_IFLNK {
			return fuse.Status(unix.ESTALE)
		}
		buf := make([]byte, unix.PathMax)
		k, err := unix.Readlinkat(fd, "", buf)
		if err != nil {
			return fuse.ToStatus(err)
		}
		out = buf[:k]
		return fuse.OK
	})
	return out, s
}

// StatFs answers for the root's file system.
func (fs *fileSystem) StatFs(cancel <-chan struct{}, h *fuse.InHeader, out *fuse.StatfsOut) fuse.Status {
	n := fs.node(h.NodeId)
	if n == nil || n.kind == kindTop || n.kind == kindCommand || !n.cmd.members.admits(h.Pid) {
		return fuse.EACCES
	}
	return n.cmd.withPath(n.root, "", unix.O_PATH, func(fd int, _ *unix.Stat_t) fuse.Status {
		var s syscall.Statfs_t
		if err := syscall.Fstatfs(fd, &s); err != nil {
			return fuse.ToStatus(err)
		}
		out.FromStatfsT(&s)
		return fuse.OK
	})
}

// stat reads c's root/rel's metadata, the link itself for a link.
func (c *command) stat(root int, rel string, st *unix.Stat_t) fuse.Status {
	return c.withPath(root, rel, unix.O_PATH|unix.O_NOFOLLOW, func(_ int, got *unix.Stat_t) fuse.Status {
		*st = *got
		return fuse.OK
	})
}

// withPath opens c's root/rel beneath the pinned root with flags, and
// calls f with the descriptor and its metadata while the root stays
// pinned; the descriptor is closed after.
func (c *command) withPath(root int, rel string, flags int, f func(fd int, st *unix.Stat_t) fuse.Status) fuse.Status {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.gone.Load() || root >= len(c.rootFDs) {
		return fuse.ENOENT
	}
	name := rel
	if name == "" {
		name = "."
	}
	fd, err := unix.Openat2(c.rootFDs[root], name, &unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: beneath})
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			return fuse.ENOENT // a link on the way: the name is not beneath the root as looked up
		}
		return fuse.ToStatus(err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fuse.ToStatus(err)
	}
	return f(fd, &st)
}

// join is rel/name ("" for the root itself).
func join(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

// syntheticDir is the metadata of the mount's root and a token: an empty
// folder only its owner may enter.
func syntheticDir(id uint64) fuse.Attr {
	return fuse.Attr{Ino: id, Mode: dirMode, Nlink: 2, Owner: fuse.Owner{Uid: uint32(unix.Getuid()), Gid: uint32(unix.Getgid())}}
}

// fromStat is a real file's metadata as FUSE carries it.
func fromStat(a *fuse.Attr, st *unix.Stat_t) {
	*a = fuse.Attr{Ino: st.Ino, Size: uint64(st.Size), Blocks: uint64(st.Blocks), Mode: st.Mode, Nlink: uint32(st.Nlink),
		Owner: fuse.Owner{Uid: st.Uid, Gid: st.Gid}, Rdev: uint32(st.Rdev), Blksize: uint32(st.Blksize),
		Atime: uint64(st.Atim.Sec), Atimensec: uint32(st.Atim.Nsec), Mtime: uint64(st.Mtim.Sec), Mtimensec: uint32(st.Mtim.Nsec),
		Ctime: uint64(st.Ctim.Sec), Ctimensec: uint32(st.Ctim.Nsec)}
}
