package kernel

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pathgrant/sandbox/rules"
)

// TestIsolation: under the isolation filter a command can make no Unix
// socket, however it names the one it wants (the path, a hard link, a
// symlink, /proc/self/root, the abstract namespace, io_uring's own socket
// op), cannot leave its session or process group, and still runs: pipes,
// socket pairs, TCP sockets and forks work. Without the filter the same
// connect succeeds, so each row proves the filter refused it.
func TestIsolation(t *testing.T) {
	requireLandlock(t)
	tr := newTestTree(t)
	sock := filepath.Join(tr.root, "secret", "daemon.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	hard := filepath.Join(tr.work, "hard.sock") // made outside: Landlock refuses a link across its rules
	if err := os.Link(sock, hard); err != nil {
		t.Fatal(err)
	}
	perl := func(code string) string { return "perl -MPOSIX -MSocket -e '" + code + "'" }
	connect := func(path string) string {
		return perl(`socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!\n"; connect($s, pack_sockaddr_un("` + path + `")) or die "connect: $!\n"; print "CONNECTED\n"`)
	}
	tests := []struct {
		name, script string
		isolate, ok  bool
		want         string
	}{
		{"connect by path, not isolated", connect(sock), false, true, "CONNECTED"},
		{"connect by path", connect(sock), true, false, "socket: Permission denied"},
		{"connect through a hard link", connect(hard), true, false, "socket: Permission denied"},
		{"connect through a symlink", "ln -s " + sock + " " + tr.work + "/sym && " + connect(tr.work+"/sym"), true, false, "socket: Permission denied"},
		{"connect through /proc/self/root", connect("/proc/self/root" + sock), true, false, "socket: Permission denied"},
		{"abstract socket", perl(`socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!\n"; print "MADE\n"`), true, false, "socket: Permission denied"},
		{"datagram socket", perl(`socket(my $s, AF_UNIX, SOCK_DGRAM, 0) or die "socket: $!\n"; print "MADE\n"`), true, false, "socket: Permission denied"},
		{"setsid in a child", perl(`my $p = fork; if ($p == 0) { POSIX::setsid() > 0 or die "setsid: $!\n"; exit 0 } waitpid($p, 0); exit($? >> 8)`), true, false, "setsid: Operation not permitted"},
		{"setpgid in a child", perl(`my $p = fork; if ($p == 0) { setpgrp(0, 0) or die "setpgid: $!\n"; exit 0 } waitpid($p, 0); exit($? >> 8)`), true, false, "setpgid: Operation not permitted"},
		{"io_uring", perl(`my $p = "\0" x 120; syscall(425, 8, $p) >= 0 and print "RING\n"; die "io_uring_setup: $!\n"`), true, false, "io_uring_setup: Operation not permitted"},
		{"socket pair", perl(`socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, 0) or die "socketpair: $!\n"; print "PAIR\n"`), true, true, "PAIR"},
		{"tcp socket", perl(`socket(my $s, AF_INET, SOCK_STREAM, 0) or die "socket: $!\n"; print "TCP\n"`), true, true, "TCP"},
		{"pipes and forks", "echo piped | cat | (sleep 0; cat)", true, true, "piped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := runHelper(t, helperJob{Rules: append(tr.rules(), rules.Rule{Path: filepath.Dir(sock), Access: rules.ReadOnly, Why: "socket folder"}),
				Isolate: tt.isolate}, tt.script)
			if (code == 0) != tt.ok || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d, want ok=%v and %q:\n%s", code, tt.ok, tt.want, out)
			}
		})
	}
}
