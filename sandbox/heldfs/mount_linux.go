//go:build linux

package heldfs

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// mountOptions are fusermount3's: read-only, no set-uid programs, devices
// or programs run from it, and auto_unmount, with which fusermount3 stays
// to unmount the file system when the daemon's descriptor closes (where
// it can tell the file system is dead: as root; as an ordinary user the
// next Mount clears it, prepareDir).
const mountOptions = "ro,nosuid,nodev,noexec,auto_unmount,fsname=pathgrant,subtype=pathgrant"

// mountTimeout bounds the wait for fusermount3's descriptor.
const mountTimeout = 10 * time.Second

// Server is the daemon's one mounted file system.
type Server struct {
	dir   string
	fs    *fileSystem
	srv   *fuse.Server
	umnt  *exec.Cmd // fusermount3, staying for auto_unmount
	comm  *os.File  // its socket: closed (this process gone), it unmounts
	close sync.Once
}

// Mount mounts pathgrant's file system at dir (made if missing, 0700; a
// dead mount there is lazily unmounted first) and serves it until Close.
func Mount(dir string, log *slog.Logger) (*Server, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	fd, cmd, comm, err := fusermount(dir)
	if err != nil {
		return nil, err
	}
	fsys, err := newFileSystem(log)
	if err != nil {
		unix.Close(fd)
		comm.Close()
		return nil, err
	}
	srv, err := fuse.NewServer(fsys, fmt.Sprintf("/dev/fd/%d", fd), &fuse.MountOptions{
		Name: "pathgrant", FsName: "pathgrant", DisableXAttrs: true, DisableReadDirPlus: true, MaxBackground: 64,
		MaxWrite: 1 << 20}) // reads of up to 1 MiB: a large approved file reads 1.4x faster than with the 128 KiB default
	if err != nil {
		unix.Close(fd)
		comm.Close() // fusermount3 unmounts and ends
		_ = cmd.Wait()
		return nil, fmt.Errorf("serve the held-open file system: %w", err)
	}
	go srv.Serve()
	if err := srv.WaitMount(); err != nil {
		_ = unmount(dir)
		comm.Close()
		_ = cmd.Wait()
		return nil, fmt.Errorf("serve the held-open file system: %w", err)
	}
	return &Server{dir: dir, fs: fsys, srv: srv, umnt: cmd, comm: comm}, nil
}

// Dir is where the file system is mounted.
func (s *Server) Dir() string { return s.dir }

// Close unmounts the file system; the calls it was answering fail.
func (s *Server) Close() error {
	var err error
	s.close.Do(func() {
		err = unmount(s.dir)
		done := make(chan struct{})
		go func() { s.srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(mountTimeout):
			err = errors.Join(err, errors.New("the held-open file system did not stop"))
		}
		s.comm.Close()
		_ = s.umnt.Wait()
	})
	return err
}

// prepareDir makes dir, or unmounts what a killed daemon left there.
func prepareDir(dir string) error {
	var st unix.Stat_t
	switch err := unix.Stat(dir, &st); {
	case dead(err):
		// fusermount3's own watch may unmount it meanwhile: only one that
		// is still there refuses
		if uerr := unmount(dir); uerr != nil && dead(unix.Stat(dir, &st)) {
			return fmt.Errorf("a dead held-open file system at %s: %w", dir, uerr)
		}
	case errors.Is(err, unix.ENOENT):
	case err != nil:
		return fmt.Errorf("held-open mount point %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("held-open mount point: %w", err)
	}
	return nil
}

// dead reports whether a stat's error says a FUSE file system there no
// longer answers (its server is gone, or going).
func dead(err error) bool { return errors.Is(err, unix.ENOTCONN) || errors.Is(err, unix.ECONNABORTED) }

// fusermount runs fusermount3 to mount at dir and returns the /dev/fuse
// descriptor it sends back (over _FUSE_COMMFD), the fusermount3 that
// stays to unmount it, and its socket, which must stay open as long as
// the file system is served: fusermount3 unmounts it when the socket
// closes (this process ended) and the file system no longer answers.
func fusermount(dir string) (int, *exec.Cmd, *os.File, error) {
	bin, err := exec.LookPath("fusermount3")
	if err != nil {
		return -1, nil, nil, fmt.Errorf("no fusermount3: %w", err)
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, nil, nil, fmt.Errorf("fusermount3: socket pair: %w", err)
	}
	local, remote := os.NewFile(uintptr(pair[0]), "fuse-comm-local"), os.NewFile(uintptr(pair[1]), "fuse-comm-remote")
	stderr, err := unlinkedFile()
	if err != nil {
		local.Close()
		remote.Close()
		return -1, nil, nil, err
	}
	defer stderr.Close()
	cmd := exec.Command(bin, "-o", mountOptions, "--", dir)
	cmd.Env = []string{"_FUSE_COMMFD=3", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	// its stderr a file, not a pipe: fusermount3 outlives this process,
	// and a write to a pipe with no reader would kill it (SIGPIPE)
	// before it unmounts
	cmd.ExtraFiles, cmd.Stderr = []*os.File{remote}, stderr
	cmd.SysProcAttr = &unix.SysProcAttr{Setsid: true} // not in the daemon's group: a Ctrl-C there leaves the mount
	err = cmd.Start()
	remote.Close()
	if err != nil {
		local.Close()
		return -1, nil, nil, fmt.Errorf("fusermount3: %w", err)
	}
	fd, err := receiveFD(pair[0])
	if err != nil {
		local.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return -1, nil, nil, fmt.Errorf("fusermount3 %s: %s", dir, firstLine(readBack(stderr), err))
	}
	comm, err := above(local, fd)
	if err != nil {
		unix.Close(fd)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return -1, nil, nil, fmt.Errorf("fusermount3 %s: %w", dir, err)
	}
	return fd, cmd, comm, nil
}

// above moves f to a descriptor numbered above fd (closing f). A process
// that dies closes its descriptors in order, so /dev/fuse's is closed,
// and the file system found dead, before fusermount3 sees its socket
// close and looks: in the other order it finds the file system alive,
// leaves it mounted and ends.
func above(f *os.File, fd int) (*os.File, error) {
	defer f.Close()
	hi, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, fd+1)
	if err != nil {
		return nil, fmt.Errorf("move fusermount3's socket: %w", err)
	}
	return os.NewFile(uintptr(hi), "fuse-comm"), nil
}

// unlinkedFile is a temporary file that no name leads to.
func unlinkedFile() (*os.File, error) {
	f, err := os.CreateTemp("", "pathgrant-fusermount3-")
	if err != nil {
		return nil, fmt.Errorf("fusermount3's stderr: %w", err)
	}
	os.Remove(f.Name())
	return f, nil
}

// readBack is what was written to f.
func readBack(f *os.File) string {
	b, _ := io.ReadAll(io.NewSectionReader(f, 0, 1<<16))
	return string(b)
}

// receiveFD reads the one descriptor fusermount3 sends, within
// mountTimeout.
func receiveFD(sock int) (int, error) {
	if err := awaitReadable(sock, mountTimeout); err != nil {
		return -1, err
	}
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := unix.Recvmsg(sock, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return -1, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return -1, errors.New("fusermount3 sent no descriptor")
	}
	fds2, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds2) != 1 {
		return -1, errors.New("fusermount3 sent no descriptor")
	}
	return fds2[0], nil
}

// unmount detaches the file system at dir (lazily: a command still in it
// sees it fail).
func unmount(dir string) error {
	out, err := exec.Command("fusermount3", "-u", "-z", "--", dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("fusermount3 -u %s: %s", dir, firstLine(string(out), err))
	}
	return nil
}

// firstLine is the first line of a helper's output, or err's text.
func firstLine(out string, err error) string {
	if line, _, _ := strings.Cut(strings.TrimSpace(out), "\n"); line != "" {
		return line
	}
	return err.Error()
}

// awaitReadable waits until sock is readable, for at most d. A poll the
// Go runtime's own signals interrupt (EINTR) is waited again for what is
// left: it is no answer from fusermount3, and a daemon under load that
// took it for one started without the file system.
func awaitReadable(sock int, d time.Duration) error {
	deadline := time.Now().Add(d)
	fds := []unix.PollFd{{Fd: int32(sock), Events: unix.POLLIN}}
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return errors.New("no descriptor from fusermount3 in time")
		}
		n, err := unix.Poll(fds, int(left/time.Millisecond)+1)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return fmt.Errorf("wait for fusermount3's descriptor: %w", err)
		case n > 0:
			return nil
		}
	}
}
