package seatbelt_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"pathgrant/sandbox/seatbelt"
)

// TestEvaluator: the evaluator the other tests judge profiles with
// decides as Seatbelt does: the last matching rule wins, a subpath ends
// at a path component, an operation family matches its members, an
// address filter never matches a file and a path filter never a socket.
func TestEvaluator(t *testing.T) {
	profile := `(version 1)
(deny default)
; a comment (allow file-read* (subpath "/"))
(allow file-read* (subpath "/a"))
(deny file-read* (literal "/a/secret"))
(allow file-read-metadata (regex #"^/[bB]$"))
(allow file-read-data (literal "/q\"uo\\te"))
(allow network-outbound (remote unix-socket (subpath "/s")))
(allow mach-lookup (global-name "one"))
(allow sysctl-read (sysctl-name-prefix "hw."))`
	expect(t, profile, []check{
		allow(read("/a")), allow(read("/a/x/y")),
		refuse(read("/ab")),
		refuse(read("/a/secret")), refuse(stat("/a/secret")),
		allow(stat("/b")), allow(stat("/B")), refuse(read("/B")), refuse(stat("/bb")),
		allow(read(`/q"uo\te`)), refuse(read(`/q\"uo\\te`)),
		allow(connect("/s/x")), refuse(read("/s/x")), refuse(connect("/a/x")), refuse(outbound()),
		allow(mach("one")), refuse(mach("two")),
		allow(sysctl("hw.ncpu")), refuse(sysctl("kern.osversion")),
		refuse(write("/a/x")),
	})
}

// TestSystem: what every profile lets a command do on macOS, whatever
// its session, and what it never does: the system's programs run, its
// configuration is read, nothing there is written; the other volumes,
// every home folder, /tmp, /Applications and the rest of /Library are
// not there; only the named services are reached; the network is open.
func TestSystem(t *testing.T) {
	profile, err := seatbelt.Profile(seatbelt.Input{})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, profile, []check{
		allow(read("/usr/bin/env")), allow(run("/bin/sh")), allow(run("/usr/local/bin/rg")), allow(mapExec("/usr/lib/libz.dylib")),
		allow(read("/System/Library/Frameworks/Foundation.framework/Foundation")),
		allow(read("/System/Volumes/Preboot/Cryptexes/OS/System/Library/dyld/dyld_shared_cache_arm64e")),
		refuse(read("/System/Volumes/Data/Users/u/.ssh/id_rsa")), refuse(stat("/System/Volumes/Data/Users/u")),
		allow(run("/Library/Developer/CommandLineTools/usr/bin/git")), allow(read("/Library/Frameworks/Python.framework/x")),
		refuse(read("/Library/Keychains/System.keychain")), refuse(read("/Library/Application Support/x")),
		refuse(read("/Applications/Safari.app/Contents/Info.plist")),
		allow(read("/private/etc/hosts")), allow(read("/private/var/db/timezone/zoneinfo/UTC")),
		allow(read("/private/var/select/sh")), allow(read("/private/var/db/xcode_select_link")),
		allow(read("/private/var/run/resolv.conf")), refuse(read("/private/var/run/other")),
		refuse(run("/private/etc/rc")), refuse(write("/private/etc/hosts")), refuse(write("/usr/local/bin/rg")),
		refuse(create("/usr/local/bin/new")), refuse(unlink("/bin/sh")), refuse(link("/usr/bin/git")),
		refuse(read("/private/tmp/x")), refuse(create("/private/tmp/x")), refuse(read("/private/var/folders/xy/z/T/f")),
		refuse(read("/Users/u/notes.txt")), refuse(stat("/Users/u")),
		allow(stat("/")), refuse(read("/")), allow(stat("/etc")), allow(stat("/private")), allow(stat("/private/var")),
		allow(write("/dev/null")), allow(read("/dev/urandom")), allow(read("/dev/fd/3")), refuse(read("/dev/disk0")),
		refuse(write("/dev/ttys001")), refuse(create("/dev/x")),
		allow(mach("com.apple.system.opendirectoryd.libinfo")), allow(mach("com.apple.trustd.agent")),
		refuse(mach("com.apple.pasteboard.1")), refuse(mach("com.apple.coreservices.launchservicesd")),
		refuse(mach("com.apple.SecurityServer")), refuse(mach("com.apple.tccd")),
		allow(sysctl("hw.ncpu")), allow(sysctl("kern.osproductversion")), refuse(sysctl("kern.procargs2")),
		allow(outbound()), allow(query{Op: "network-bind", IP: true}),
		allow(connect("/private/var/run/mDNSResponder")), refuse(connect("/private/var/run/docker.sock")),
		refuse(connect("/private/tmp/com.apple.launchd.x/Listeners")),
	})
}

// TestKinds: each kind of step gives its place and all below it what it
// says, and nothing next to it (/w/px is not below /w/p); a deny matches
// every letter case of its place, an allow only the place as spelt.
func TestKinds(t *testing.T) {
	rw := seatbelt.Step{Path: "/w", Kind: seatbelt.ReadWrite, Why: "workspace"}
	tests := []struct {
		name   string
		steps  []seatbelt.Step
		checks []check
	}{
		{"hidden", []seatbelt.Step{rw, {Path: "/w/h", Kind: seatbelt.Hidden, Why: "hidden"}}, []check{
			refuse(read("/w/h")), refuse(stat("/w/h")), refuse(read("/w/h/x")), refuse(write("/w/h/x")), refuse(create("/w/h/x")),
			refuse(run("/w/h/x")), refuse(connect("/w/h/s")), refuse(bind("/w/h/s")), refuse(read("/w/H/X")), refuse(unlink("/w/h")),
			allow(read("/w/hx")), allow(read("/w/x")),
		}},
		{"names", []seatbelt.Step{{Path: "/n", Kind: seatbelt.Names, Why: "approvable (names only)"}}, []check{
			allow(stat("/n")), allow(stat("/n/x")), refuse(read("/n")), refuse(read("/n/x")), refuse(write("/n/x")),
		}},
		{"read", []seatbelt.Step{{Path: "/r", Kind: seatbelt.Read, Why: "grant"}}, []check{
			allow(read("/r")), allow(read("/r/x")), allow(stat("/r/x")), allow(connect("/r/s")),
			refuse(write("/r/x")), refuse(create("/r/x")), refuse(unlink("/r/x")), refuse(link("/r/x")), refuse(run("/r/x")),
			refuse(bind("/r/s")), refuse(read("/R/x")), refuse(read("/rx")),
		}},
		{"read and run", []seatbelt.Step{{Path: "/t", Kind: seatbelt.ReadExec, Why: "toolchain"}}, []check{
			allow(read("/t/bin/go")), allow(run("/t/bin/go")), allow(mapExec("/t/lib/x.dylib")), refuse(write("/t/bin/go")),
		}},
		{"read and write", []seatbelt.Step{rw}, []check{
			allow(read("/w/x")), allow(write("/w/x")), allow(create("/w/x")), allow(unlink("/w/x")), allow(link("/w/x")),
			allow(run("/w/x")), allow(connect("/w/s")), allow(bind("/w/s")), allow(stat("/")),
			refuse(unlink("/w")), refuse(unlink("/W")), refuse(write("/W/x")), refuse(read("/wx")),
		}},
		{"not written, over a write area", []seatbelt.Step{rw, {Path: "/w/p", Kind: seatbelt.NoWrite, Why: "protected"}}, []check{
			allow(read("/w/p")), allow(read("/w/p/x")), allow(run("/w/p/hook")),
			refuse(write("/w/p")), refuse(create("/w/p")), refuse(unlink("/w/p")), refuse(write("/w/p/x")), refuse(create("/w/p/x")),
			refuse(unlink("/w/p/x")), refuse(link("/w/p/x")), refuse(bind("/w/p/s")),
			refuse(write("/w/P")), refuse(create("/W/P/X")),
			allow(write("/w/px")), allow(create("/w/x")),
		}},
		{"a later step covers an earlier one", []seatbelt.Step{rw, {Path: "/w/p", Kind: seatbelt.NoWrite, Why: "protected"},
			{Path: "/w/p/q", Kind: seatbelt.ReadWrite, Why: "pinned"}}, []check{
			allow(write("/w/p/q/x")), refuse(write("/w/p/x")), refuse(unlink("/w/p/q")),
		}},
		{"socket", []seatbelt.Step{{Path: "/s/agent.sock", Kind: seatbelt.Socket, Why: "ssh agent"}}, []check{
			allow(connect("/s/agent.sock")), allow(stat("/s/agent.sock")), refuse(read("/s/agent.sock")),
			refuse(connect("/s/agent.sock2")), refuse(connect("/s/other")),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profile, err := seatbelt.Profile(seatbelt.Input{Steps: tt.steps})
			if err != nil {
				t.Fatal(err)
			}
			expect(t, profile, tt.checks)
		})
	}
}

// TestDeveloperAndTerminals: the developer folder is read and run (the
// .app bundle's rest too), the terminals named are read and written.
func TestDeveloperAndTerminals(t *testing.T) {
	profile, err := seatbelt.Profile(seatbelt.Input{Developer: "/Applications/Xcode.app", Terminals: []string{"/dev/ttys003"}})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, profile, []check{
		allow(run("/Applications/Xcode.app/Contents/Developer/usr/bin/git")), allow(read("/Applications/Xcode.app/Contents/version.plist")),
		refuse(write("/Applications/Xcode.app/Contents/version.plist")), refuse(read("/Applications/Other.app/x")),
		allow(read("/dev/ttys003")), allow(write("/dev/ttys003")), refuse(write("/dev/ttys004")),
	})
}

// TestRefuses: a path no rule can hold, a step of no kind, a terminal
// that is no terminal: no profile at all.
func TestRefuses(t *testing.T) {
	step := func(p string) seatbelt.Input {
		return seatbelt.Input{Steps: []seatbelt.Step{{Path: p, Kind: seatbelt.Read, Why: "grant"}}}
	}
	tests := []struct {
		name string
		in   seatbelt.Input
	}{
		{"relative", step("w/x")},
		{"not clean", step("/w/../x")},
		{"trailing slash", step("/w/")},
		{"NUL", step("/w/a\x00b")},
		{"newline", step("/w/a\n(allow default)")},
		{"not UTF-8", step("/w/a\xffb")},
		{"no kind", seatbelt.Input{Steps: []seatbelt.Step{{Path: "/w", Why: "workspace"}}}},
		{"unknown kind", seatbelt.Input{Steps: []seatbelt.Step{{Path: "/w", Kind: 99, Why: "workspace"}}}},
		{"terminal outside /dev", seatbelt.Input{Terminals: []string{"/Users/u/.ssh/id_rsa"}}},
		{"terminal not a tty", seatbelt.Input{Terminals: []string{"/dev/disk0"}}},
		{"terminal not clean", seatbelt.Input{Terminals: []string{"/dev/ttys1/../../etc/x"}}},
		{"developer folder not clean", seatbelt.Input{Developer: "/Library/Developer/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profile, err := seatbelt.Profile(tt.in)
			if err == nil {
				t.Fatalf("Profile wrote a profile:\n%s", profile)
			}
		})
	}
	if _, err := seatbelt.Profile(step("/w/a\x00b")); !errors.Is(err, seatbelt.ErrUnsafe) {
		t.Errorf("a NUL: %v, want ErrUnsafe", err)
	}
}

// TestQuoting: a place whose name holds the characters SBPL strings and
// regular expressions treat specially is named exactly by its allows and
// at least by its denies (a character #"…" cannot hold matches any).
func TestQuoting(t *testing.T) {
	odd := `/w/a"b\c.d*e(f)[g]{h}|i^j$k+l?m; n`
	profile, err := seatbelt.Profile(seatbelt.Input{Steps: []seatbelt.Step{
		{Path: "/w", Kind: seatbelt.ReadWrite, Why: "workspace"},
		{Path: odd, Kind: seatbelt.ReadWrite, Why: "pinned"},
		{Path: odd + "/.git", Kind: seatbelt.NoWrite, Why: "protected"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, profile, []check{
		allow(read(odd + "/x")), allow(write(odd + "/x")), allow(read(`/w/a"b\c`)),
		refuse(unlink(odd)), refuse(write(odd + "/.GIT/config")), refuse(write(`/w/A"B\C.D*E(F)[G]{H}|I^J$K+L?M; N/.git/x`)),
		refuse(unlink(`/w/aXbYc.d*e(f)[g]{h}|i^j$k+l?m; n`)), // widened: " and \ match any character in a deny
		allow(unlink("/w/aXbYcXd*e(f)[g]{h}|i^j$k+l?m; n")),  // the . in the name is only a dot
		allow(unlink("/w/a\"b\\c.d*e(f)[g]{h}|i^j$k+l?m; nn")),
	})
}

// TestFolded: the expression matches the path in every letter case of its
// ASCII letters and nothing else.
func TestFolded(t *testing.T) {
	tests := []struct {
		path    string
		matches []string
		misses  []string
	}{
		{"/w/.git/config", []string{"/w/.git/config", "/W/.GIT/CONFIG", "/w/.Git/Config"}, []string{"/w/xgit/config", "/w/.git/config2", "/w/.git/confi"}},
		{"/a.b*c", []string{"/A.B*C"}, []string{"/aXb*c", "/a.bbbc", "/a.c"}},
		{"/é/x", []string{"/é/X"}, []string{"/É/x", "/e/x"}},
		{"/1-2_3 4", []string{"/1-2_3 4"}, []string{"/1-2_3  4"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			rx, err := seatbelt.Folded(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			re := regexp.MustCompile("^" + rx + "$")
			for _, m := range tt.matches {
				if !re.MatchString(m) {
					t.Errorf("%s does not match %q", rx, m)
				}
			}
			for _, m := range tt.misses {
				if re.MatchString(m) {
					t.Errorf("%s matches %q", rx, m)
				}
			}
			if strings.ContainsAny(rx, "\"\n") {
				t.Errorf("%s holds a quote or a newline", rx)
			}
		})
	}
}

// TestDeterministic: the same input, the same profile.
func TestDeterministic(t *testing.T) {
	in := seatbelt.Input{Developer: "/Library/Developer/CommandLineTools", Steps: []seatbelt.Step{
		{Path: "/w", Kind: seatbelt.ReadWrite, Why: "workspace"}, {Path: "/z/r", Kind: seatbelt.Read, Why: "grant"},
		{Path: "/a/b/c", Kind: seatbelt.ReadExec, Why: "toolchain"}, {Path: "/w/.git/config", Kind: seatbelt.NoWrite, Why: "protected"}}}
	first, err := seatbelt.Profile(in)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if again, _ := seatbelt.Profile(in); again != first {
			t.Fatalf("a second profile differs:\n%s\n---\n%s", first, again)
		}
	}
}

// TestSystemReads: what the system rules let every command read, as
// the front end's explanation of refusals takes it.
func TestSystemReads(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/usr/bin/git", true}, {"/System/Library/x", true}, {"/System/Volumes/Preboot/Cryptexes/OS/x", true},
		{"/private/etc/hosts", true}, {"/dev/null", true}, {"/private/var/db/xcode_select_link", true},
		{"/System/Volumes/Data/Users/u/x", false}, {"/Users/u/x", false}, {"/usrx", false}, {"/private/tmp/x", false},
		{"/dev/disk0", false}, {"/Applications/x", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := seatbelt.SystemReads(tt.path); got != tt.want {
				t.Errorf("SystemReads(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}
