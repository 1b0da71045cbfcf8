package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"pathgrant/guard"
)

type readArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"` // first line, counted from 0
	Limit  int    `json:"limit,omitempty"`  // lines; 0: to the end (or the byte limit)
}

type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

type listArgs struct {
	Path string `json:"path"`
}

func (p *Prepared) prepareRead() error {
	var a readArgs
	if err := decodeArgs(p.call.Args, &a); err != nil {
		return err
	}
	if a.Path == "" || a.Offset < 0 || a.Limit < 0 {
		return fmt.Errorf("%w: read_file needs a path, and offset and limit must not be negative", ErrBadCall)
	}
	p.req = guard.Request{Op: guard.OpRead, Path: a.Path}
	p.run = func(_ context.Context, d guard.Decision) Result { return p.sess.readFile(d, a) }
	return nil
}

func (p *Prepared) prepareWrite() error {
	var a writeArgs
	if err := decodeArgs(p.call.Args, &a); err != nil {
		return err
	}
	if a.Path == "" || a.Content == nil {
		return fmt.Errorf("%w: write_file needs a path and content", ErrBadCall)
	}
	p.req = guard.Request{Op: guard.OpWrite, Path: a.Path}
	p.run = func(_ context.Context, d guard.Decision) Result { return p.sess.writeFile(d, *a.Content) }
	return nil
}

func (p *Prepared) prepareList() error {
	var a listArgs
	if err := decodeArgs(p.call.Args, &a); err != nil {
		return err
	}
	if a.Path == "" {
		return fmt.Errorf("%w: list_directory needs a path", ErrBadCall)
	}
	p.req = guard.Request{Op: guard.OpRead, Path: a.Path}
	p.run = func(_ context.Context, d guard.Decision) Result { return p.sess.listDirectory(d) }
	return nil
}

func (s *Session) readFile(d guard.Decision, a readArgs) Result {
	path, err := allowedPath(d, guard.OpRead)
	if err != nil {
		return Result{Error: err.Error()}
	}
	f, err := openNoLinks(unix.AT_FDCWD, path, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return Result{Path: path, Error: s.osFailure(path, err, err.Error())}
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return Result{Path: path, Error: fmt.Sprintf("read %s: not a regular file", path)}
	}
	text, truncated, err := readLines(f, a.Offset, a.Limit, s.Limits.MaxOutput)
	if err != nil {
		return Result{Path: path, Error: s.osFailure(path, err, fmt.Sprintf("read %s: %v", path, err))}
	}
	return Result{Path: path, Content: &text, Bytes: len(text), Truncated: truncated}
}

// readLines returns lines [offset, offset+limit) of r (limit 0: all),
// cut at maxBytes.
func readLines(r io.Reader, offset, limit, maxBytes int) (string, bool, error) {
	br := bufio.NewReader(r)
	var sb strings.Builder
	for line := 0; limit == 0 || line < offset+limit; line++ {
		text, err := br.ReadString('\n')
		if line >= offset {
			if sb.Len()+len(text) > maxBytes {
				sb.WriteString(text[:maxBytes-sb.Len()])
				return sb.String(), true, nil
			}
			sb.WriteString(text)
		}
		if errors.Is(err, io.EOF) {
			return sb.String(), false, nil
		}
		if err != nil {
			return "", false, err
		}
	}
	_, err := br.Peek(1)
	return sb.String(), err == nil, nil
}

func (s *Session) writeFile(d guard.Decision, content string) Result {
	path, err := allowedPath(d, guard.OpWrite)
	if err != nil {
		return Result{Error: err.Error()}
	}
	dir, err := openNoLinks(unix.AT_FDCWD, filepath.Dir(path), dirHandle|unix.O_DIRECTORY, 0)
	if err != nil {
		return Result{Path: path, Error: err.Error()}
	}
	defer dir.Close()
	f, err := openNoLinks(int(dir.Fd()), filepath.Base(path), unix.O_WRONLY|unix.O_CREAT|unix.O_NONBLOCK, 0o644)
	if err != nil {
		return Result{Path: path, Error: err.Error()}
	}
	defer f.Close()
	if err := singleLink(f); err != nil {
		return Result{Path: path, Error: fmt.Sprintf("write %s: %v", path, err)}
	}
	if err := f.Truncate(0); err != nil {
		return Result{Path: path, Error: fmt.Sprintf("write %s: %v", path, err)}
	}
	n, err := io.WriteString(f, content)
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		return Result{Path: path, Bytes: n, Error: fmt.Sprintf("write %s: %v", path, err)}
	}
	return Result{Path: path, Bytes: n}
}

// singleLink refuses a file that is not regular, or that has another
// name (a hard link) somewhere the guard did not judge.
func singleLink(f *os.File) error {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return err
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return errors.New("not a regular file")
	case st.Nlink > 1:
		return fmt.Errorf("the file has %d hard links; writing it would change the other names too", st.Nlink)
	}
	return nil
}

func (s *Session) listDirectory(d guard.Decision) Result {
	path, err := allowedPath(d, guard.OpRead)
	if err != nil {
		return Result{Error: err.Error()}
	}
	f, err := openNoLinks(unix.AT_FDCWD, path, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return Result{Path: path, Error: s.osFailure(path, err, err.Error())}
	}
	defer f.Close()
	des, err := f.ReadDir(s.Limits.MaxEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return Result{Path: path, Error: s.osFailure(path, err, fmt.Sprintf("list %s: %v", path, err))}
	}
	res := Result{Path: path, Entries: []Entry{}}
	if len(des) > s.Limits.MaxEntries {
		des, res.Truncated = des[:s.Limits.MaxEntries], true
	}
	for _, de := range des {
		res.Entries = append(res.Entries, entryOf(de))
	}
	return res
}

func entryOf(de fs.DirEntry) Entry {
	e := Entry{Name: de.Name(), Type: "other"}
	switch t := de.Type(); {
	case t&fs.ModeSymlink != 0:
		e.Type = "symlink"
	case t.IsDir():
		e.Type = "dir"
	case t.IsRegular():
		e.Type = "file"
	}
	if fi, err := de.Info(); err == nil && e.Type == "file" {
		e.Size = fi.Size()
	}
	return e
}
