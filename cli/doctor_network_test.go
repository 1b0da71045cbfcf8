package cli

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pathgrant/sandbox"
)

// The machines the network checks are played on.
var (
	fullLevel     = sandbox.Facts{LandlockABI: 6, Bwrap: "/usr/bin/bwrap", UserNS: true}
	landlockLevel = sandbox.Facts{LandlockABI: 6}
	seatbeltLevel = sandbox.Facts{LandlockErr: errors.New("no Landlock on darwin"), SandboxExec: "/usr/bin/sandbox-exec"}
	noLevel       = sandbox.Facts{LandlockErr: errors.New("function not implemented")}
)

// networkEnv is a doctor environment with home's policy file (none when
// policy is "") and a machine of facts.
func networkEnv(t *testing.T, goos, policy, display string, facts sandbox.Facts) doctorEnv {
	t.Helper()
	home := t.TempDir()
	if policy != "" {
		writePolicy(t, home+"/.config/pathgrant/policy.toml", policy)
	}
	vars := map[string]string{"HOME": home, "DISPLAY": display}
	return doctorEnv{GOOS: goos, Getenv: func(k string) string { return vars[k] },
		Confinement: func() sandbox.Confinement { return sandbox.Assess(facts) }}
}

// TestDoctorNetworkMode: the network line says what holds for the mode
// in force on the machine's level: a namespace whose one way out is the
// proxy, or a gap (mode host; no namespace to be had).
func TestDoctorNetworkMode(t *testing.T) {
	tests := []struct {
		name, goos, policy string
		facts              sandbox.Facts
		want               doctorLine
		lacks              string // not in the line
	}{
		{"default: allow-public", "linux", "", fullLevel, doctorLine{doctorOK, []string{
			"each confined command has a network namespace of its own; it goes out only through pathgrant's proxy (mode allow-public",
			"public destinations are reached, private addresses asked, this machine's own refused"}}, ""},
		{"ask", "linux", "[network]\nmode = \"ask\"\n", fullLevel, doctorLine{doctorOK, []string{
			"network namespace of its own", "only through pathgrant's proxy (mode ask: every new destination is a request)"}}, ""},
		{"off", "linux", "[network]\nmode = \"off\"\n", fullLevel, doctorLine{doctorOK, []string{
			"network namespace of its own; it has no way out (mode off)"}}, ""},
		{"ranges allowed are named", "linux", "[network]\nallow_ranges = [\"10.20.0.0/16\"]\n", fullLevel, doctorLine{doctorOK, []string{
			"private addresses reached without asking: 10.20.0.0/16"}}, ""},
		{"ranges count in allow-public only", "linux", "[network]\nmode = \"ask\"\nallow_ranges = [\"10.20.0.0/16\"]\n", fullLevel, doctorLine{doctorOK, []string{
			"every new destination is a request)"}}, "10.20.0.0/16"},
		{"host", "linux", "[network]\nmode = \"host\"\n", fullLevel, doctorLine{doctorWarn, []string{
			`mode = "host": confined commands share this machine's network: every service listening on it (an X server on TCP, Docker's API, a database) is one connect away`,
			`set mode = "allow-public"`, "under [network] in HOME/.config/pathgrant/policy.toml"}}, ""},
		{"host on macOS", "darwin", "[network]\nmode = \"host\"\n", seatbeltLevel, doctorLine{doctorWarn, []string{`mode = "host"`}}, ""},
		{"Landlock only", "linux", "", landlockLevel, doctorLine{doctorWarn, []string{
			"no network namespace at the Landlock-only level", `mode = "allow-public" is not enforced`, "nothing holds instead", "install bubblewrap"}}, ""},
		{"Landlock only, mode off", "linux", "[network]\nmode = \"off\"\n", landlockLevel, doctorLine{doctorWarn, []string{`mode = "off" is not enforced`}}, ""},
		{"macOS", "darwin", "[network]\nmode = \"ask\"\n", seatbeltLevel, doctorLine{doctorInfo, []string{
			"no network namespace on macOS", "connect to any address", `mode = "ask" is not enforced`}}, ""},
		{"confinement off in the file", "linux", "confinement = false\n", fullLevel, doctorLine{doctorInfo, []string{"not confined", "share this machine's network"}}, ""},
		{"no confinement on the machine", "linux", "", noLevel, doctorLine{doctorInfo, []string{"not confined"}}, ""},
		{"a refused file", "linux", "[network]\nmode = \"open\"\n", fullLevel, doctorLine{doctorInfo, []string{"unknown: the device policy does not load"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := networkEnv(t, tt.goos, tt.policy, "", tt.facts)
			c := networkModeCheck(env, env.Confinement())
			want := doctorLine{status: tt.want.status}
			for _, s := range tt.want.has {
				want.has = append(want.has, strings.ReplaceAll(s, "HOME", env.Getenv("HOME")))
			}
			checkNetworkLine(t, c, "network", want)
			if tt.lacks != "" && strings.Contains(c.Detail, tt.lacks) {
				t.Errorf("network: %q says %q", c.Detail, tt.lacks)
			}
		})
	}
}

// TestDisplayHost: DISPLAY reaches the X server over TCP when it names
// a host other than unix, or the tcp protocol; a socket path is local.
func TestDisplayHost(t *testing.T) {
	tests := []struct {
		display string
		tcp     bool
	}{
		{":0", false},
		{":1.0", false},
		{"unix:0", false},
		{"unix/:0", false},
		{"/tmp/launch-x/org.xquartz:0", false},
		{"", false},
		{"localhost:0", true},
		{"localhost:10.0", true},
		{"127.0.0.1:10.0", true},
		{"myhost:0", true},
		{"tcp/host:0", true},
		{"tcp/:0", true},
		{"inet6/::1:0", true},
		{"::1:0", true},
		{"host::0", true},
	}
	for _, tt := range tests {
		t.Run(tt.display, func(t *testing.T) {
			if _, tcp := displayHost(tt.display); tcp != tt.tcp {
				t.Errorf("displayHost(%q) over TCP = %v, want %v", tt.display, tcp, tt.tcp)
			}
		})
	}
}

// TestDoctorDisplay: the display line and the X-over-TCP line, from
// DISPLAY and the machine's listening sockets (fixture tables under
// testdata, an unreadable table, and a real listener read live).
func TestDoctorDisplay(t *testing.T) {
	fixture := func(name string) func(*testing.T) (string, []string) {
		return func(*testing.T) (string, []string) { return filepath.Join("testdata", "doctor_network", name), nil }
	}
	tests := []struct {
		name, goos, display string
		root                func(t *testing.T) (root string, has []string) // has: more the X line must say
		want                map[string]doctorLine                          // every line but "network"
	}{
		{"local display, no X on TCP", "linux", ":0", fixture("no-x"), map[string]doctorLine{
			"display": {doctorOK, []string{"DISPLAY=:0 is this machine's own socket"}}}},
		{"no DISPLAY", "linux", "", fixture("no-x"), map[string]doctorLine{
			"display": {doctorOK, []string{"DISPLAY is unset"}}}},
		{"DISPLAY names a host", "linux", "myhost:0", fixture("no-x"), map[string]doctorLine{
			"display": {doctorWarn, []string{"DISPLAY=myhost:0 names a host (myhost)", "over TCP", "type into it", "'pathgrant pending'"}}}},
		{"ssh X forwarding", "linux", "localhost:10.0", fixture("ssh-forwarding"), map[string]doctorLine{
			"display":    {doctorWarn, []string{"DISPLAY=localhost:10.0 names a host"}},
			"X over TCP": {doctorWarn, []string{"(port 6010 on 127.0.0.1, port 6010 on ::1)", "xhost", "-listen tcp", "a command outside pathgrant's view type into pathgrant's window", "-nolisten tcp"}}}},
		{"X on every address", "linux", ":0", fixture("x-all-addresses"), map[string]doctorLine{
			"display":    {doctorOK, nil},
			"X over TCP": {doctorWarn, []string{"(port 6000 on 0.0.0.0, port 6000 on ::)"}}}},
		{"a mapped address, no IPv4 table", "linux", ":0", fixture("mapped-no-ipv4-table"), map[string]doctorLine{
			"display":    {doctorOK, nil},
			"X over TCP": {doctorWarn, []string{"(port 6001 on 127.0.0.1)"}}}},
		{"tables unreadable", "linux", ":0", func(t *testing.T) (string, []string) {
			root := t.TempDir()
			if err := os.MkdirAll(root+"/proc/net/tcp", 0o700); err != nil {
				t.Fatal(err)
			}
			return root, nil
		}, map[string]doctorLine{
			"display":    {doctorOK, nil},
			"X over TCP": {doctorInfo, []string{"unknown: read the listening sockets"}}}},
		{"a real listener, read live", "linux", ":0", liveXListener, map[string]doctorLine{
			"display":    {doctorOK, nil},
			"X over TCP": {doctorWarn, nil}}},
		{"macOS says nothing of X", "darwin", "localhost:0", fixture("x-all-addresses"), map[string]doctorLine{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, has := tt.root(t)
			env := networkEnv(t, tt.goos, "", tt.display, fullLevel)
			got := networkChecksAt(env, root)
			names := []string{}
			for _, c := range got[1:] {
				names = append(names, c.Name)
			}
			if len(got) == 0 || got[0].Name != "network" || len(names) != len(tt.want) {
				t.Fatalf("lines %+v, want network then %d", got, len(tt.want))
			}
			for _, c := range got[1:] {
				want := tt.want[c.Name]
				if c.Name == "X over TCP" {
					want.has = slices.Concat(want.has, has)
				}
				checkNetworkLine(t, c, c.Name, want)
			}
		})
	}
}

// liveXListener listens on 127.0.0.1 at the first free X port, for as
// long as the test runs, and says what the X line must name; it skips
// the test only when every X port is taken.
func liveXListener(t *testing.T) (string, []string) {
	t.Helper()
	for port := xFirstPort; port <= xLastPort; port++ {
		l, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		t.Cleanup(func() { l.Close() })
		return "/", []string{fmt.Sprintf("port %d on 127.0.0.1", port)}
	}
	t.Skip("every X port (6000-6063) on 127.0.0.1 is taken")
	return "", nil
}

// TestDoctorNetworkInReport: doctor's report carries the network and
// display lines, after confinement's.
func TestDoctorNetworkInReport(t *testing.T) {
	f := newDoctorFixture(t)
	writePolicy(t, f.home+"/.config/pathgrant/policy.toml", "[network]\nmode = \"host\"\n")
	f.vars["DISPLAY"] = "localhost:10.0"
	var stdout, stderr bytes.Buffer
	runDoctorWith([]string{"--socket", f.sock, "--store", f.store}, &stdout, &stderr, f.env())
	lines := parseDoctorTable(t, stdout.String())
	checkDoctorLine(t, f, lines, "network", doctorLine{doctorWarn, []string{`mode = "host"`, "HOME/.config/pathgrant/policy.toml"}})
	checkDoctorLine(t, f, lines, "display", doctorLine{doctorWarn, []string{"DISPLAY=localhost:10.0 names a host"}})
	if out := stdout.String(); strings.Index(out, "\nnetwork ") < strings.Index(out, "\nconfinement ") {
		t.Errorf("the network line comes before confinement's:\n%s", out)
	}
}

// checkNetworkLine wants c named name, with want's status and every
// string of want.has in its detail or fix.
func checkNetworkLine(t *testing.T, c doctorCheck, name string, want doctorLine) {
	t.Helper()
	if c.Name != name || c.Status != want.status {
		t.Errorf("line %+v, want %s %s", c, name, want.status)
	}
	for _, s := range want.has {
		if !strings.Contains(c.Detail+" — "+c.Fix, s) {
			t.Errorf("%s: %q — %q lacks %q", name, c.Detail, c.Fix, s)
		}
	}
}
