package sandbox

import (
	"encoding/json"
	"slices"
	"testing"

	"pathgrant/devicepolicy"
	"pathgrant/sandbox/launch"
	"pathgrant/sandbox/rules"
)

// TestLaunchNetwork: every mode but "host" gives the command a network
// namespace of its own; every mode but "host" and "off" gives it
// pathgrant's proxy as its way out, in the prepared answer and in the
// job the inner step reads. At the Landlock-only level there is no
// namespace to give.
func TestLaunchNetwork(t *testing.T) {
	tests := []struct {
		mode      string
		level     Level
		namespace bool
		wayOut    bool
	}{
		{devicepolicy.NetAllowPublic, LevelFull, true, true},
		{devicepolicy.NetAsk, LevelFull, true, true},
		{devicepolicy.NetOff, LevelFull, true, false},
		{devicepolicy.NetHost, LevelFull, false, false},
		{"", LevelFull, true, true}, // a policy read before the mode existed: the default
		{devicepolicy.NetAllowPublic, LevelLandlock, false, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.level)+"/"+tt.mode, func(t *testing.T) {
			e := newLaunchEnv(t, tt.level)
			l, err := e.l.Launch(e.pol, devicepolicy.Policy{Confinement: true, Network: devicepolicy.Network{Mode: tt.mode}}, e.req)
			if err != nil {
				t.Fatal(err)
			}
			p := l.Prepared
			if got := slices.Contains(p.Args, "--unshare-net"); got != tt.namespace {
				t.Errorf("--unshare-net in bubblewrap's options: %v, want %v", got, tt.namespace)
			}
			var job rules.Job
			if err := json.Unmarshal(p.Job, &job); err != nil {
				t.Fatal(err)
			}
			if got := p.Net != nil; got != tt.wayOut {
				t.Fatalf("a way out prepared: %v, want %v", got, tt.wayOut)
			}
			if tt.wayOut && (p.Net.Port != launch.ProxyPort || job.Net != launch.NetFD || job.NetPort != launch.ProxyPort) {
				t.Errorf("way out: prepared %+v, job net %d port %d; want port %d at descriptor %d", p.Net, job.Net, job.NetPort, launch.ProxyPort, launch.NetFD)
			}
			if !tt.wayOut && (job.Net != 0 || job.NetPort != 0) {
				t.Errorf("job hands out a listener (fd %d port %d) with no way out", job.Net, job.NetPort)
			}
		})
	}
}
