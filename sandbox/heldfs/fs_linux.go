//go:build linux

package heldfs

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"pathgrant/sandbox/supervise"
)

// Bounds on what the file system keeps; past them a lookup or open fails
// (ENFILE, EMFILE) and says so: a command cannot grow the daemon without
// limit.
const (
	maxNodes        = 1 << 20 // names looked up and not forgotten, over the commands registered now
	maxNodesPerCmd  = 1 << 18
	maxDirEntries   = 1 << 17 // entries of one listing
	attrTimeout     = time.Second
	rootNodeID      = fuse.FUSE_ROOT_ID
	dirMode         = unix.S_IFDIR | 0o500
	commandNodeMode = dirMode
)

// kind is what a node of the file system is.
type kind int

const (
	kindTop     kind = iota // the mount's root: nobody lists it
	kindCommand             // TOKEN: a registered command
	kindRoot                // TOKEN/i: the command's approvable root i
	kindChild               // a name beneath a root
)

// node is one inode the kernel knows, until it forgets it.
type node struct {
	id      uint64
	kind    kind
	cmd     *command
	root    int    // kindRoot and kindChild: the root's index
	rel     string // kindChild: the path beneath the root
	dev     uint64 // the real file's identity, checked at every use
	ino     uint64
	lookups uint64
	file    *openFile // its open handles' descriptor (handles_linux.go), under fileSystem.mu
}

// key finds a child node again by name and identity.
type key struct {
	cmd      *command
	root     int
	rel      string
	dev, ino uint64
}

// command is a registered Command with what the file system keeps of it.
type command struct {
	Command
	token   string
	node    *node
	members *members
	gate    *supervise.Gate

	mu      sync.RWMutex // held while rootFDs are used; Unregister closes them under the write lock
	rootFDs []int        // O_PATH descriptors of Roots, pinned at Register
	gone    atomic.Bool
	// under fileSystem.mu: its nodes, handles and open files now
	nodes, handles, files int
}

// fileSystem is the raw FUSE file system: node ids are its own, so two
// commands never share a node, whatever files their roots hold.
type fileSystem struct {
	fuse.RawFileSystem // ENOSYS for every operation not implemented here
	log                *slog.Logger
	selfNS             uint64

	mu      sync.Mutex
	nodes   map[uint64]*node
	byKey   map[key]*node
	cmds    map[string]*command
	handles map[uint64]*handle
	next    uint64
	// files are the descriptors open for handles now, at most maxFiles.
	files, maxFiles int
}

func newFileSystem(log *slog.Logger) (*fileSystem, error) {
	self, err := nsOf(0, "pid")
	if err != nil {
		return nil, fmt.Errorf("the daemon's PID namespace: %w", err)
	}
	fs := &fileSystem{RawFileSystem: fuse.NewDefaultRawFileSystem(), log: log, selfNS: self,
		nodes: map[uint64]*node{}, byKey: map[key]*node{}, cmds: map[string]*command{}, handles: map[uint64]*handle{}, next: rootNodeID,
		maxFiles: fileBound()}
	fs.nodes[rootNodeID] = &node{id: rootNodeID, kind: kindTop, lookups: 1}
	return fs, nil
}

func (fs *fileSystem) String() string { return "pathgrant" }

// Register serves c under token until Unregister: its roots are pinned
// now, and a root that is not a folder any more refuses the command.
func (s *Server) Register(token string, c Command) error {
	if token == "" || filepath.Base(token) != token || token == "." || token == ".." {
		return fmt.Errorf("held-open token %q", token)
	}
	cmd := &command{Command: c, token: token, members: newMembers(c.Holder, c.Bwrap, s.fs.selfNS), gate: &supervise.Gate{Limits: c.Limits}}
	for _, root := range c.Roots {
		fd, err := unix.Openat2(unix.AT_FDCWD, root, &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
		if err != nil {
			cmd.closeRoots()
			return fmt.Errorf("pin the approvable root %s: %w", root, err)
		}
		cmd.rootFDs = append(cmd.rootFDs, fd)
	}
	fs := s.fs
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if _, dup := fs.cmds[token]; dup {
		cmd.closeRoots()
		return fmt.Errorf("held-open token %q is taken", token)
	}
	fs.next++
	cmd.node = &node{id: fs.next, kind: kindCommand, cmd: cmd}
	fs.nodes[cmd.node.id] = cmd.node
	fs.cmds[token] = cmd
	return nil
}

// Unregister stops serving token: its roots, files and sandboxes are
// closed, its nodes forgotten (the kernel's later forgets of them are
// ignored), and every call of its sandbox from now on fails.
func (s *Server) Unregister(token string) {
	fs := s.fs
	fs.mu.Lock()
	cmd := fs.cmds[token]
	var files []*openFile
	if cmd != nil {
		delete(fs.cmds, token)
		cmd.gone.Store(true)
		files = fs.dropHandles(cmd)
		fs.forgetNodes(cmd)
	}
	fs.mu.Unlock()
	if cmd == nil {
		return
	}
	for _, f := range files {
		f.close()
	}
	cmd.members.close()
	cmd.mu.Lock()
	cmd.closeRoots()
	cmd.mu.Unlock()
}

// forgetNodes drops every node of c, under fs.mu.
func (fs *fileSystem) forgetNodes(c *command) {
	delete(fs.nodes, c.node.id)
	for id, n := range fs.nodes {
		if n.cmd == c {
			delete(fs.nodes, id)
			delete(fs.byKey, key{cmd: n.cmd, root: n.root, rel: n.rel, dev: n.dev, ino: n.ino})
		}
	}
	c.nodes = 0
}

// fileBound is maxFiles, or a quarter of the daemon's descriptor limit
// when that is lower: the rest stay for its sockets and stores.
func fileBound() int {
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &l); err == nil && l.Cur/4 < maxFiles {
		return int(max(l.Cur/4, 16))
	}
	return maxFiles
}

func (c *command) closeRoots() {
	for _, fd := range c.rootFDs {
		unix.Close(fd)
	}
	c.rootFDs = nil
}

// abs is the path a node of c names outside: what is asked and said.
func (c *command) abs(root int, rel string) string {
	if rel == "" {
		return c.Roots[root]
	}
	return filepath.Join(c.Roots[root], rel)
}

// node returns the node id names, nil when the kernel names one it was
// never given or that was forgotten.
func (fs *fileSystem) node(id uint64) *node {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.nodes[id]
}

// child returns the node for c's root/rel with identity st, one more
// lookup of it counted, or an error past the bounds.
func (fs *fileSystem) child(c *command, root int, rel string, st *unix.Stat_t) (*node, error) {
	k := key{cmd: c, root: root, rel: rel, dev: st.Dev, ino: st.Ino}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if n := fs.byKey[k]; n != nil {
		n.lookups++
		return n, nil
	}
	if c.gone.Load() {
		return nil, errEnded
	}
	if len(fs.nodes) >= maxNodes || c.nodes >= maxNodesPerCmd {
		return nil, errTooManyNames
	}
	fs.next++
	n := &node{id: fs.next, kind: kindChild, cmd: c, root: root, rel: rel, dev: st.Dev, ino: st.Ino, lookups: 1}
	if rel == "" {
		n.kind = kindRoot
	}
	fs.nodes[n.id], fs.byKey[k] = n, n
	c.nodes++
	return n, nil
}

var (
	errTooManyNames = errors.New("too many names looked up at once")
	errEnded        = errors.New("the command has ended")
)

// Forget drops nodes the kernel no longer holds.
func (fs *fileSystem) Forget(id, nlookup uint64) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := fs.nodes[id]
	if n == nil || n.kind == kindTop || n.kind == kindCommand {
		return
	}
	if n.lookups > nlookup {
		n.lookups -= nlookup
		return
	}
	delete(fs.nodes, id)
	delete(fs.byKey, key{cmd: n.cmd, root: n.root, rel: n.rel, dev: n.dev, ino: n.ino})
	n.cmd.nodes--
}

// say keeps the refusal line of c's open of path, once per path.
func (c *command) say(path, line string) {
	if c.Say != nil && line != "" {
		c.Say(path, line)
	}
}
