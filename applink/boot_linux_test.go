package applink

import (
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestHelloOnlyFromTheApp: the daemon takes the link's ends only from
// the pid it started, as this user, saying the hello; anything else is
// thrown away and the wait goes on.
func TestHelloOnlyFromTheApp(t *testing.T) {
	tests := []struct {
		name    string
		wantPid int
		text    string
		fds     int
		ok      bool
	}{
		{"the app", os.Getpid(), helloText, 2, true},
		{"another process", os.Getpid() + 1, helloText, 2, false},
		{"not the hello", os.Getpid(), "hello", 2, false},
		{"one end only", os.Getpid(), helloText, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			boot, appBoot, err := bootPair()
			if err != nil {
				t.Fatal(err)
			}
			defer boot.Close()
			defer appBoot.Close()
			var rights []int
			for range tc.fds {
				p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer unix.Close(p[0])
				defer unix.Close(p[1])
				rights = append(rights, p[1])
			}
			cred := unix.UnixCredentials(&unix.Ucred{Pid: int32(os.Getpid()), Uid: uint32(os.Getuid()), Gid: uint32(os.Getgid())})
			if err := unix.Sendmsg(int(appBoot.Fd()), []byte(tc.text), append(cred, unix.UnixRights(rights...)...), nil, 0); err != nil {
				t.Fatal(err)
			}
			events, calls, err := awaitHello(boot, tc.wantPid, 300*time.Millisecond)
			if tc.ok != (err == nil) {
				t.Fatalf("awaitHello: %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "sent no link") {
				t.Errorf("refused with %v, want the wait to go on until its end", err)
			}
			if err == nil {
				events.Close()
				calls.Close()
			}
		})
	}
}
