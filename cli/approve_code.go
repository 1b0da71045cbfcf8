package cli

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// How `pathgrant approve` takes the approval code: typed at the terminal
// with its echo off, or the first line of standard input when that is not
// a terminal (a pipe, a here-string). Never from the command line, which
// every process of the person's can read.

// errNoCode is the refusal of an empty code: nothing is sent.
var errNoCode = errors.New("no approval code given; nothing approved")

// piped reads the code from standard input that is not a terminal: its
// first line, trimmed.
func (c confirmer) piped() (string, error) {
	code, err := c.readLine()
	switch {
	case err != nil:
		return "", err
	case code == "":
		return "", usagef("no approval code on standard input: pipe in the code shown beside your choice (the prompt window or the daemon's log); nothing approved")
	}
	return code, nil
}

// secret writes the prompt and reads one line from the terminal with its
// echo off, so the code is neither shown nor left in the terminal's
// scrollback; the echo comes back however the read ends, a signal
// included. An empty line is an error.
func (c confirmer) secret(prompt string) (string, error) {
	fmt.Fprintf(c.out, "%s ", prompt)
	restore, err := noEcho(c.term)
	if err != nil {
		return "", err
	}
	line, err := c.readLine()
	restore()
	fmt.Fprintln(c.out) // the Enter typed was not echoed either
	if err != nil {
		return "", err
	}
	if line == "" {
		return "", errNoCode
	}
	return line, nil
}

// noEcho turns off the echo of terminal f (nil: nothing to do) and
// returns what turns it back on. A signal that would end the process
// while the echo is off first turns it back on, then ends the process as
// it would have.
func noEcho(f *os.File) (restore func(), err error) {
	if f == nil {
		return func() {}, nil
	}
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return nil, fmt.Errorf("read the terminal's settings: %w", err)
	}
	old := *t
	t.Lflag &^= unix.ECHO | unix.ECHOE | unix.ECHOK
	t.Lflag |= unix.ICANON
	if err := unix.IoctlSetTermios(fd, setTermios, t); err != nil {
		return nil, fmt.Errorf("turn the terminal's echo off: %w", err)
	}
	sigs := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	go func() {
		select {
		case sig := <-sigs:
			_ = unix.IoctlSetTermios(fd, setTermios, &old)
			signal.Reset(sig)
			_ = unix.Kill(os.Getpid(), sig.(syscall.Signal))
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
		_ = unix.IoctlSetTermios(fd, setTermios, &old)
	}, nil
}
