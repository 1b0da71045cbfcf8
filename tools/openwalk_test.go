package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// opener is one way to open a path refusing symlinks; openers (per OS)
// lists every way this OS has, so one table holds them all to the same
// answers.
type opener func(dirfd int, path string, flags int, mode uint32) (*os.File, error)

// openTree is a scratch tree: a folder with a file, a FIFO, links to
// both, a link to a folder and a dangling link.
func openTree(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(root+"/dir/sub", 0o700))
	must(os.WriteFile(root+"/dir/file", []byte("data"), 0o600))
	must(unix.Mkfifo(root+"/dir/fifo", 0o600))
	must(os.Symlink(root+"/dir", root+"/dirlink"))
	must(os.Symlink("file", root+"/dir/filelink"))
	must(os.Symlink("sub", root+"/dir/sublink"))
	must(os.Symlink(root+"/dir/absent", root+"/dir/dangling"))
	return root
}

// TestOpenNoLinks runs one table through every opener of this OS: a
// symlink anywhere on the way is refused with the one message, and
// everything else answers as the kernel does, without blocking.
func TestOpenNoLinks(t *testing.T) {
	tests := []struct {
		name  string
		path  string // below the tree; "/" alone is the root folder
		flags int
		want  error       // nil: opens
		mode  fs.FileMode // the type of what opened
		// differs is the answer of the opener named where it is not
		// want: the walk refuses .., which openat2 resolves (a canonical
		// path never has one); openat2 asked for a folder reports a
		// symlink at the end as ENOTDIR, the walk as the symlink it is.
		// Both refuse.
		differs map[string]error
	}{
		{name: "a file", path: "dir/file", flags: unix.O_RDONLY, mode: 0},
		{name: "double slash and dot", path: "dir//./file", flags: unix.O_RDONLY, mode: 0},
		{name: "a folder", path: "dir/sub/", flags: unix.O_RDONLY | unix.O_DIRECTORY, mode: fs.ModeDir},
		{name: "the root folder", path: "/", flags: unix.O_RDONLY | unix.O_DIRECTORY, mode: fs.ModeDir},
		{name: "symlink in the middle", path: "dirlink/file", flags: unix.O_RDONLY, want: errLinkOnTheWay},
		{name: "symlink at the end", path: "dir/filelink", flags: unix.O_RDONLY, want: errLinkOnTheWay},
		{name: "symlink to a folder at the end", path: "dir/sublink", flags: unix.O_RDONLY | unix.O_DIRECTORY, want: errLinkOnTheWay,
			differs: map[string]error{"openat2": unix.ENOTDIR}},
		{name: "symlink as a folder handle", path: "dir/sublink", flags: dirHandle | unix.O_DIRECTORY, want: errLinkOnTheWay,
			differs: map[string]error{"openat2": unix.ENOTDIR}},
		{name: "dangling symlink created through", path: "dir/dangling", flags: unix.O_WRONLY | unix.O_CREAT, want: errLinkOnTheWay},
		{name: "dot dot", path: "dir/sub/../file", flags: unix.O_RDONLY, mode: 0, differs: map[string]error{"walk": errNotCanonical}},
		{name: "missing file", path: "dir/absent", flags: unix.O_RDONLY, want: unix.ENOENT},
		{name: "missing folder on the way", path: "absent/file", flags: unix.O_RDONLY, want: unix.ENOENT},
		{name: "a file on the way", path: "dir/file/x", flags: unix.O_RDONLY, want: unix.ENOTDIR},
		{name: "a folder where a file is written", path: "dir/sub", flags: unix.O_WRONLY | unix.O_NONBLOCK, want: unix.EISDIR},
		{name: "a file where a folder is expected", path: "dir/file", flags: unix.O_RDONLY | unix.O_DIRECTORY, want: unix.ENOTDIR},
		{name: "a FIFO read does not block", path: "dir/fifo", flags: unix.O_RDONLY | unix.O_NONBLOCK, mode: fs.ModeNamedPipe},
		{name: "a FIFO written with no reader", path: "dir/fifo", flags: unix.O_WRONLY | unix.O_NONBLOCK, want: unix.ENXIO},
		{name: "a FIFO on the way does not block", path: "dir/fifo/x", flags: unix.O_RDONLY, want: unix.ENOTDIR},
	}
	root := openTree(t)
	for name, open := range openers() {
		for _, tc := range tests {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				path := root + "/" + tc.path
				if tc.path == "/" {
					path = "/"
				}
				want := tc.want
				if err, ok := tc.differs[name]; ok {
					want = err
				}
				f, err := openWithin(t, open, unix.AT_FDCWD, path, tc.flags)
				checkOpen(t, f, err, path, want, tc.mode)
			})
		}
	}
	if _, err := os.Lstat(root + "/dir/absent"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dangling link's target was created: %v", err)
	}
}

// TestOpenNoLinksFromFolder: a relative path is opened below the folder
// descriptor given, links refused there too.
func TestOpenNoLinksFromFolder(t *testing.T) {
	root := openTree(t)
	for name, open := range openers() {
		t.Run(name, func(t *testing.T) {
			dir, err := os.Open(root + "/dir")
			if err != nil {
				t.Fatal(err)
			}
			defer dir.Close()
			f, err := openWithin(t, open, int(dir.Fd()), "file", unix.O_RDONLY)
			checkOpen(t, f, err, "file", nil, 0)
			f, err = openWithin(t, open, int(dir.Fd()), "sublink/x", unix.O_RDONLY)
			checkOpen(t, f, err, "sublink/x", errLinkOnTheWay, 0)
		})
	}
}

// openWithin opens, failing the test rather than hanging when the open
// blocks.
func openWithin(t *testing.T, open opener, dirfd int, path string, flags int) (*os.File, error) {
	t.Helper()
	type result struct {
		f   *os.File
		err error
	}
	done := make(chan result, 1)
	mode := uint32(0) // openat2 takes a mode only with O_CREAT
	if flags&unix.O_CREAT != 0 {
		mode = 0o600
	}
	go func() {
		f, err := open(dirfd, path, flags, mode)
		done <- result{f, err}
	}()
	select {
	case r := <-done:
		return r.f, r.err
	case <-time.After(5 * time.Second):
		t.Fatalf("open %s blocked", path)
		return nil, nil
	}
}

// checkOpen holds one open's answer to the row: the file of the type
// wanted, or the error wanted naming the path; a symlink's refusal in
// exactly the words pathgrant has always used.
func checkOpen(t *testing.T, f *os.File, err error, path string, want error, mode fs.FileMode) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("open %s: %v", path, err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || fi.Mode().Type() != mode {
			t.Errorf("opened %s: %v, %v; want type %v", path, fi.Mode(), err, mode)
		}
		return
	}
	if err == nil {
		f.Close()
		t.Fatalf("open %s succeeded, want %v", path, want)
	}
	if !errors.Is(err, want) || !strings.Contains(err.Error(), path) {
		t.Errorf("open %s: %v; want %v naming the path", path, err, want)
	}
	if want == errLinkOnTheWay && err.Error() != "open "+path+": a symlink is on the way (the path changed since it was checked)" {
		t.Errorf("symlink refusal %q", err)
	}
}
