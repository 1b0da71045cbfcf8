//go:build linux

package heldfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"pathgrant/sandbox/supervise"
	"pathgrant/wire"
)

// Open serves a file of a root: read-only, after the daemon allowed it.
func (fs *fileSystem) Open(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	n := fs.node(in.NodeId)
	if n == nil || n.kind != kindChild || !n.cmd.members.admits(in.Pid) {
		return fuse.EACCES
	}
	if in.Flags&(unix.O_ACCMODE|unix.O_CREAT|unix.O_TRUNC) != 0 {
		return fuse.EROFS
	}
	fd, s := fs.held(cancel, n, in.Pid, false)
	if s != fuse.OK {
		return s
	}
	return fs.openHandle(n, fd, &out.Fh)
}

// OpenDir lists a folder of a root, after the daemon allowed reading it.
func (fs *fileSystem) OpenDir(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	n := fs.node(in.NodeId)
	if n == nil || n.kind == kindTop || n.kind == kindCommand || !n.cmd.members.admits(in.Pid) {
		return fuse.EACCES
	}
	fd, s := fs.held(cancel, n, in.Pid, true)
	if s != fuse.OK {
		return s
	}
	entries, err := listing(fd)
	if err != nil {
		n.cmd.say(n.cmd.abs(n.root, n.rel), fmt.Sprintf("pathgrant: %s: not listed: %v", wire.Printable(n.cmd.abs(n.root, n.rel)), err))
		return fuse.Status(unix.EMFILE)
	}
	return fs.listHandle(n, entries, &out.Fh)
}

// held pins n's real file (or folder) when the call comes, asks for it,
// and opens what was pinned: read-only, and only when the name still
// leads to it after the person decided (the pinned file stays alive,
// so its number cannot have been reused by a file swapped in).
func (fs *fileSystem) held(cancel <-chan struct{}, n *node, pid uint32, dir bool) (int, fuse.Status) {
	c := n.cmd
	pin, s := c.pin(n, dir)
	if s != fuse.OK {
		return -1, s
	}
	defer unix.Close(pin.fd)
	if s := fs.ask(cancel, n, pid); s != fuse.OK {
		return -1, s
	}
	var now unix.Stat_t
	if s := c.stat(n.root, n.rel, &now); s != fuse.OK || now.Dev != pin.st.Dev || now.Ino != pin.st.Ino {
		c.say(c.abs(n.root, n.rel), fmt.Sprintf("pathgrant: %s: replaced while the person was asked: refused", wire.Printable(c.abs(n.root, n.rel))))
		return -1, fuse.EACCES
	}
	return reopen(pin, dir)
}

// pinned is an O_PATH descriptor of a node's real file, and its identity.
type pinned struct {
	fd int
	st unix.Stat_t
}

// pin opens n's real file as a path only, beneath the root, no link
// followed, when it is still the one looked up and of the kind opened.
func (c *command) pin(n *node, dir bool) (pinned, fuse.Status) {
	want := uint32(unix.S_IFREG)
	if dir {
		want = unix.S_IFDIR
	}
	p := pinned{fd: -1}
	s := c.withPath(n.root, n.rel, unix.O_PATH|unix.O_NOFOLLOW, func(fd int, st *unix.Stat_t) fuse.Status {
		if st.Dev != n.dev || st.Ino != n.ino || st.Mode&unix.S_IFMT != want {
			c.say(c.abs(n.root, n.rel), fmt.Sprintf("pathgrant: %s: replaced since it was looked up: refused", wire.Printable(c.abs(n.root, n.rel))))
			return fuse.EACCES
		}
		dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			return fuse.ToStatus(err)
		}
		p.fd, p.st = dup, *st
		return fuse.OK
	})
	return p, s
}

// reopen opens the pinned file for reading (never blocking on it while
// opening), and checks it is the one pinned.
func reopen(p pinned, dir bool) (int, fuse.Status) {
	flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK
	if dir {
		flags |= unix.O_DIRECTORY
	}
	fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(p.fd), flags, 0)
	if err != nil {
		return -1, fuse.ToStatus(err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Dev != p.st.Dev || st.Ino != p.st.Ino {
		unix.Close(fd)
		return -1, fuse.EACCES
	}
	if !dir {
		if err := supervise.SetBlocking(fd); err != nil {
			unix.Close(fd)
			return -1, fuse.ToStatus(err)
		}
	}
	return fd, fuse.OK
}

// ask asks the daemon whether the caller's command may read n, unless a
// grant it started with covers it, within the command's limits, and
// waits; an interrupted call (a signal) withdraws the ask.
func (fs *fileSystem) ask(cancel <-chan struct{}, n *node, pid uint32) fuse.Status {
	c := n.cmd
	abs := c.abs(n.root, n.rel)
	if supervise.Covered(c.Granted, abs) {
		return fuse.OK
	}
	if why := c.gate.Admit(); why != "" {
		c.say(abs, fmt.Sprintf("pathgrant: %s: not held for approval: %s", wire.Printable(abs), why))
		return fuse.EACCES
	}
	defer c.gate.Release()
	ctx, stop := interruptible(cancel)
	defer stop()
	ans, err := c.Ask.AskHold(ctx, wire.HoldRequest{Path: abs, Program: supervise.Program(int(pid)), By: wire.HeldByFS})
	switch {
	case ctx.Err() != nil:
		return fuse.EINTR
	case err != nil:
		c.say(abs, fmt.Sprintf("pathgrant: %s: could not ask whether it may be read: %v", wire.Printable(abs), err))
		return fuse.EACCES
	case !ans.Allowed:
		c.say(abs, ans.Line)
		return fuse.EACCES
	case ans.Path != abs:
		c.say(abs, fmt.Sprintf("pathgrant: %s: approved as %s, which is not the name the command opened: refused", wire.Printable(abs), wire.Printable(ans.Path)))
		return fuse.EACCES
	}
	return fuse.OK
}

// interruptible is a context that ends when the kernel interrupts the
// call (the caller got a signal).
func interruptible(cancel <-chan struct{}) (context.Context, func()) {
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		select {
		case <-cancel:
			stop()
		case <-ctx.Done():
		}
	}()
	return ctx, stop
}

// listing reads a folder's entries (closing fd), at most maxDirEntries.
func listing(fd int) ([]fuse.DirEntry, error) {
	f := os.NewFile(uintptr(fd), "listing")
	defer f.Close()
	ents, err := f.ReadDir(maxDirEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(ents) > maxDirEntries {
		return nil, fmt.Errorf("more than %d entries", maxDirEntries)
	}
	out := []fuse.DirEntry{{Name: ".", Mode: unix.S_IFDIR}, {Name: "..", Mode: unix.S_IFDIR}}
	for _, e := range ents {
		out = append(out, fuse.DirEntry{Name: e.Name(), Mode: typeBits(e.Type())})
	}
	return out, nil
}

// typeBits are a listing entry's S_IF* bits.
func typeBits(t fs.FileMode) uint32 {
	switch {
	case t.IsDir():
		return unix.S_IFDIR
	case t&fs.ModeSymlink != 0:
		return unix.S_IFLNK
	case t&fs.ModeNamedPipe != 0:
		return unix.S_IFIFO
	case t&fs.ModeSocket != 0:
		return unix.S_IFSOCK
	case t&fs.ModeCharDevice != 0:
		return unix.S_IFCHR
	case t&fs.ModeDevice != 0:
		return unix.S_IFBLK
	}
	return unix.S_IFREG
}
