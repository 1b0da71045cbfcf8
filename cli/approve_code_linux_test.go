package cli

import (
	"bytes"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the side a person types into (the
// master) and the terminal a command reads (the slave).
func openPTY(t *testing.T) (typed, term *os.File) {
	t.Helper()
	// non-blocking, so that reads of what the terminal showed take a
	// deadline
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	m := os.NewFile(uintptr(fd), "/dev/ptmx")
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// echoOn reports whether terminal f echoes what is typed.
func echoOn(t *testing.T, f *os.File) bool {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(f.Fd()), getTermios)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag&unix.ECHO != 0
}

// TestCodeTypedWithoutEcho: at a real terminal the code is read with the
// echo off, so what the person types is not shown (nor left on the
// screen), and the echo is back on afterwards.
func TestCodeTypedWithoutEcho(t *testing.T) {
	typed, term := openPTY(t)
	if !echoOn(t, term) {
		t.Fatal("a new terminal does not echo")
	}
	var question bytes.Buffer
	c := newConfirmer(term, &question)
	if !c.tty || c.term == nil {
		t.Fatalf("a terminal not taken for one: %+v", c)
	}
	got := make(chan string, 1)
	go func() {
		code, err := c.secret("Approval code:")
		if err != nil {
			code = "error: " + err.Error()
		}
		got <- code
	}()
	deadline := time.Now().Add(5 * time.Second)
	for echoOn(t, term) {
		if time.Now().After(deadline) {
			t.Fatal("the echo was never turned off")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := typed.WriteString("K7MP3QXA\n"); err != nil {
		t.Fatal(err)
	}
	if code := <-got; code != "K7MP3QXA" {
		t.Fatalf("read %q, want the code typed", code)
	}
	if !echoOn(t, term) {
		t.Error("the echo stays off after the code was read")
	}
	// what the terminal showed the person: nothing of the code
	if err := typed.SetReadDeadline(time.Now().Add(200 * time.Millisecond)); err != nil {
		t.Fatalf("no deadline on the terminal: %v", err)
	}
	shown := make([]byte, 256)
	n, _ := typed.Read(shown)
	if bytes.Contains(shown[:n], []byte("K7MP")) {
		t.Errorf("the terminal echoed the code: %q", shown[:n])
	}
	if question.String() != "Approval code: \n" {
		t.Errorf("asked %q", question.String())
	}
}
