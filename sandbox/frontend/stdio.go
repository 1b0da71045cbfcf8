package frontend

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// copies are the pipes Run reads the sandbox's output through: the
// parent's write ends close once the child started, and drain waits for
// the copies to finish (bounded by drainGrace).
type copies struct {
	mu      sync.Mutex
	writers []*os.File // the child's ends, closed in the parent once it started
	readers []*os.File
	done    sync.WaitGroup
}

// stdio is the sandbox's descriptors 0-3 (the job at 3 when confined).
func (c Child) stdio(job *os.File, scan io.Writer) ([]*os.File, *copies, error) {
	cp := &copies{}
	stdin := c.Stdin
	if stdin == nil {
		null, err := os.Open(os.DevNull)
		if err != nil {
			return nil, nil, fmt.Errorf("stdin: %w", err)
		}
		stdin = null
		cp.writers = append(cp.writers, null)
	}
	stdout, err := cp.output(c.Stdout, nil)
	if err != nil {
		cp.started()
		cp.drain()
		return nil, nil, err
	}
	var stderr *os.File
	if f, ok := c.Stderr.(*os.File); ok && c.StraightStderr {
		stderr = f
	} else if stderr, err = cp.output(c.Stderr, scan); err != nil {
		cp.started()
		cp.drain()
		return nil, nil, err
	}
	files := []*os.File{stdin, stdout, stderr}
	if job != nil {
		files = append(files, job)
	}
	return files, cp, nil
}

// output is the descriptor for w: w itself when it is a file and nothing
// is to see it on the way (side nil), else a pipe copied to w (and side).
func (cp *copies) output(w io.Writer, side io.Writer) (*os.File, error) {
	if f, ok := w.(*os.File); ok && side == nil {
		return f, nil
	}
	if w == nil {
		w = io.Discard
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("output pipe: %w", err)
	}
	cp.writers = append(cp.writers, pw)
	cp.readers = append(cp.readers, pr)
	cp.done.Add(1)
	go func() { defer cp.done.Done(); tee(pr, w, side) }()
	return pw, nil
}

// started closes the parent's copies of the child's ends.
func (cp *copies) started() {
	for _, f := range cp.writers {
		f.Close()
	}
}

// drain waits for the copies to end, at most drainGrace; then the pipes
// are closed, so a process that outlived the sandbox's exit (none can in
// a PID namespace) gets EPIPE.
func (cp *copies) drain() {
	ended := make(chan struct{})
	go func() { cp.done.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(drainGrace):
	}
	for _, r := range cp.readers {
		r.Close()
	}
}

// tee copies r to w and side until it ends or w refuses it; then it
// closes r, so the command's next write fails as it would have on w.
func tee(r *os.File, w, side io.Writer) {
	defer r.Close()
	buf := make([]byte, 32*1024)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if side != nil {
				side.Write(buf[:n])
			}
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
