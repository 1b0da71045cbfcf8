package e2e

import (
	"bufio"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/prompt"
	"pathgrant/wire"
)

// TestNetworkAppXServerTCP: an X server that listens on TCP with no
// access control (`-listen tcp -ac`, as some remote-desktop setups run
// one), and on it the real app showing a pending request. Any process of
// the machine reaches the X server over TCP and could type into the
// window; a confined command reaches it at none of the machine's
// addresses, neither to find the window nor to press its keys, and the
// request is still pending afterwards. (The door walk in package cli
// walks every door against such a server without the app; this is
// `pathgrant exec --session`, the front end every door shares, with the
// app's window there to be found.)
func TestNetworkAppXServerTCP(t *testing.T) {
	d, n := startTCPDesktop(t)
	e := newAppEnv(t)
	startTheApp(t, d, e, "network-app-x.log")
	person := apiclient.New(e.socket)
	agent := agentSession(t, e)
	ans := <-agentCheck(t, e, agent, wire.CheckRequest{Command: "cat ~/Downloads/report.csv", Tool: "Bash"})
	if ans.Pending == "" {
		t.Fatalf("the Downloads read raised no request: %+v", ans)
	}
	b := &inbox{t: t, d: d, e: e}
	win := b.window("(1 of 1)")
	search := "xdotool search --name " + shellQuote(prompt.WindowTitle)
	displays := []string{"127.0.0.1:" + n, ownIPv4(t).String() + ":" + n}

	// The control: outside pathgrant, over TCP, the window is found.
	for _, display := range displays {
		out, err := exec.Command("sh", "-c", "DISPLAY="+display+" "+search).CombinedOutput()
		if err != nil || !strings.Contains(string(out), win) {
			t.Fatalf("unconfined, DISPLAY=%s finds no inbox window (%v, %q): the confined rows below prove nothing", display, err, out)
		}
	}

	for _, display := range displays {
		for _, row := range []struct{ name, command string }{
			{"find the window", search},
			{"press Allow once", search + pressOnce},
		} {
			t.Run(display+"/"+row.name, func(t *testing.T) {
				run := startAppCommand(t, d, e, agent, "sh", "-c", "DISPLAY="+display+" "+row.command)
				code, out := run.wait(t)
				if code == 0 || strings.Contains(out, win) || !strings.Contains(out, "Can't open display") {
					t.Fatalf("confined, DISPLAY=%s: exit %d, output %q; want the display unreachable", display, code, out)
				}
			})
		}
	}

	time.Sleep(prompt.ArmDelay + time.Second) // a key that got through would have approved by now
	if st := requestState(t, person, ans.Pending); st != wire.StatePending {
		t.Fatalf("request %s after the confined commands, want pending", st)
	}
	b.window("(1 of 1)")

	// The other control: the same key press from outside pathgrant, over
	// TCP, approves; the confined ones failed for want of the display.
	press := "DISPLAY=" + displays[0] + " " + search + pressOnce
	if out, err := exec.Command("sh", "-c", press).CombinedOutput(); err != nil {
		t.Fatalf("unconfined key press: %v %q", err, out)
	}
	waitUntil(t, 10*time.Second, "the unconfined key press's approval", func() bool {
		return requestState(t, person, ans.Pending) == wire.StateApproved
	})
}

// pressOnce, after an xdotool search, does what a person does to approve
// once from the keyboard: the focus to the window, then, once the window
// has had the keyboard for the arm delay (the allow keys act only then),
// Alt+O.
const pressOnce = " windowfocus --sync %1 sleep 1.5 key --clearmodifiers alt+o"

// startTCPDesktop starts Xvfb listening on TCP with no access control,
// and a session bus, for the app; it returns the desktop and the
// display's number N (TCP port 6000+N).
func startTCPDesktop(t *testing.T) (*desktop, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: runs in the full test step, not with -short")
	}
	needTools(t, "Xvfb", "dbus-run-session", "xdotool")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-listen", "tcp", "-ac")
	x.ExtraFiles = []*os.File{w}
	startGroup(t, x)
	w.Close()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	var n string
	select {
	case n = <-line:
	case <-time.After(15 * time.Second):
	}
	if n == "" {
		t.Fatal("Xvfb did not report a display")
	}
	d := &desktop{Display: ":" + n, dir: t.TempDir()}
	busFile := filepath.Join(d.dir, "bus")
	bus := exec.Command("dbus-run-session", "--", "sh", "-c", fmt.Sprintf(`echo "$DBUS_SESSION_BUS_ADDRESS" > %q; exec sleep 600`, busFile))
	bus.Env = append(os.Environ(), "DISPLAY="+d.Display)
	startGroup(t, bus)
	d.Bus = waitFile(t, busFile)
	return d, n
}

// ownIPv4 is one of the machine's own IPv4 addresses other than loopback
// and link-local: where an X server listening on TCP is reached from the
// machine's network too.
func ownIPv4(t *testing.T) netip.Addr {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		p, err := netip.ParsePrefix(a.String())
		if err == nil && p.Addr().Is4() && !p.Addr().IsLoopback() && !p.Addr().IsLinkLocalUnicast() {
			return p.Addr()
		}
	}
	t.Fatal("this machine has no IPv4 address but loopback")
	return netip.Addr{}
}
