//go:build linux

package heldfs

import (
	"fmt"
	"sync"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"pathgrant/wire"
)

// The kernel's open files and listings of the file system are handles.
// Every handle of one file shares one descriptor of the daemon's (reads
// are preads, which keep no position), so a command that opens the same
// file twenty thousand times costs the daemon one descriptor; the files
// open at once are bounded per command and in all, well below the
// daemon's own descriptor limit, and past a bound an open fails with
// EMFILE and says so.

// handle is an open file or a folder's listing, its command's until the
// kernel releases it or the command is unregistered.
type handle struct {
	node    *node
	file    *openFile       // an open file's
	entries []fuse.DirEntry // a listing's
}

// openFile is one descriptor of a node's real file, shared by its open
// handles.
type openFile struct {
	mu   sync.RWMutex // reads hold it; closing takes it, so no read uses a closed descriptor
	fd   int
	refs int // handles, under fileSystem.mu
}

// Bounds on open handles: the files one command has open at once, the
// files open in all (lowered at Mount to a quarter of the daemon's
// descriptor limit), and one command's handles (listings included).
const (
	maxFilesPerCmd   = 1024
	maxFiles         = 1 << 15
	maxHandlesPerCmd = 1 << 16
)

// openHandle makes a handle of n's file, reusing the descriptor another
// handle of it holds (fd is then closed), within the bounds.
func (fs *fileSystem) openHandle(n *node, fd int, fh *uint64) fuse.Status {
	c := n.cmd
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if why := fs.full(c, n.file == nil); why != "" {
		unix.Close(fd)
		c.say(c.abs(n.root, n.rel), fmt.Sprintf("pathgrant: %s: not served: %s", wire.Printable(c.abs(n.root, n.rel)), why))
		return fuse.Status(unix.EMFILE)
	}
	if n.file != nil {
		unix.Close(fd)
	} else {
		n.file = &openFile{fd: fd}
		c.files++
		fs.files++
	}
	n.file.refs++
	return fs.addHandle(&handle{node: n, file: n.file}, fh)
}

// listHandle makes a handle of n's listing.
func (fs *fileSystem) listHandle(n *node, entries []fuse.DirEntry, fh *uint64) fuse.Status {
	c := n.cmd
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if why := fs.full(c, false); why != "" {
		c.say(c.abs(n.root, n.rel), fmt.Sprintf("pathgrant: %s: not listed: %s", wire.Printable(c.abs(n.root, n.rel)), why))
		return fuse.Status(unix.EMFILE)
	}
	return fs.addHandle(&handle{node: n, entries: entries}, fh)
}

// full says which bound a new handle of c (with a new descriptor, when
// newFile) is past, under fs.mu.
func (fs *fileSystem) full(c *command, newFile bool) string {
	switch {
	case c.gone.Load():
		return "the command has ended"
	case c.handles >= maxHandlesPerCmd:
		return fmt.Sprintf("the command has %d files and folders open through pathgrant already", c.handles)
	case newFile && c.files >= maxFilesPerCmd:
		return fmt.Sprintf("the command has %d files open through pathgrant already", c.files)
	case newFile && fs.files >= fs.maxFiles:
		return fmt.Sprintf("%d files are open through pathgrant already", fs.files)
	}
	return ""
}

// addHandle numbers h, under fs.mu.
func (fs *fileSystem) addHandle(h *handle, fh *uint64) fuse.Status {
	fs.next++
	fs.handles[fs.next] = h
	h.node.cmd.handles++
	*fh = fs.next
	return fuse.OK
}

func (fs *fileSystem) handle(fh uint64) *handle {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.handles[fh]
}

// Read reads an open file, at the kernel's offset.
func (fs *fileSystem) Read(cancel <-chan struct{}, in *fuse.ReadIn, buf []byte) (fuse.ReadResult, fuse.Status) {
	h := fs.handle(in.Fh)
	if h == nil || h.file == nil {
		return nil, fuse.EBADF
	}
	f := h.file
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.fd < 0 {
		return nil, fuse.EBADF
	}
	size := min(int(in.Size), len(buf))
	k, err := unix.Pread(f.fd, buf[:size], int64(in.Offset))
	if err != nil {
		return nil, fuse.ToStatus(err)
	}
	return fuse.ReadResultData(buf[:k]), fuse.OK
}

// ReadDir lists from the kernel's offset.
func (fs *fileSystem) ReadDir(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	h := fs.handle(in.Fh)
	if h == nil || h.entries == nil {
		return fuse.EBADF
	}
	for i := in.Offset; i < uint64(len(h.entries)); i++ {
		e := h.entries[i]
		e.Off = i + 1
		if !out.AddDirEntry(e) {
			break
		}
	}
	return fuse.OK
}

// Release closes an open file's handle.
func (fs *fileSystem) Release(cancel <-chan struct{}, in *fuse.ReleaseIn) { fs.drop(in.Fh) }

// ReleaseDir forgets a listing.
func (fs *fileSystem) ReleaseDir(in *fuse.ReleaseIn) { fs.drop(in.Fh) }

// drop forgets handle fh, closing its file's descriptor with its last
// handle.
func (fs *fileSystem) drop(fh uint64) {
	fs.mu.Lock()
	h := fs.handles[fh]
	var last *openFile
	if h != nil {
		delete(fs.handles, fh)
		last = fs.unref(h)
	}
	fs.mu.Unlock()
	if last != nil {
		last.close()
	}
}

// unref counts h gone from its command and file, and returns the file
// when this was its last handle, under fs.mu.
func (fs *fileSystem) unref(h *handle) *openFile {
	n := h.node
	n.cmd.handles--
	if h.file == nil {
		return nil
	}
	h.file.refs--
	if h.file.refs > 0 {
		return nil
	}
	if n.file == h.file {
		n.file = nil
	}
	n.cmd.files--
	fs.files--
	return h.file
}

func (f *openFile) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fd >= 0 {
		unix.Close(f.fd)
		f.fd = -1
	}
}

// dropHandles closes what an unregistered command still has open, under
// fs.mu; it returns the files to close after.
func (fs *fileSystem) dropHandles(c *command) []*openFile {
	var gone []*openFile
	for fh, h := range fs.handles {
		if h.node.cmd == c {
			delete(fs.handles, fh)
			if f := fs.unref(h); f != nil {
				gone = append(gone, f)
			}
		}
	}
	return gone
}
