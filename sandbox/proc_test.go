package sandbox

import (
	"slices"
	"testing"
)

// TestLandlockSystemRules: at the Landlock-only level /proc is the
// kernel's entries and the command's own folder, never another
// process's, nor a link that leads into one.
func TestLandlockSystemRules(t *testing.T) {
	fsys := newFakeFS("/proc/1/", "/proc/4242/", "/proc/cpuinfo", "/proc/sys/", "/proc/self@/proc/4242",
		"/proc/thread-self@/proc/4242/task/4242", "/proc/net@/proc/self/net", "/proc/mounts@/proc/self/mounts")
	got := LandlockSystemRules(fsys)
	tests := []struct {
		path   string
		follow bool
		want   bool
	}{
		{"/proc", true, false},
		{"/proc", false, false},
		{"/proc/1", false, false},
		{"/proc/4242", false, false},
		{"/proc/net", false, false},
		{"/proc/mounts", false, false},
		{"/proc/thread-self", false, false},
		{"/proc/self", true, true},
		{"/proc/cpuinfo", false, true},
		{"/proc/sys", false, true},
		{"/etc", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			has := slices.ContainsFunc(got, func(r Rule) bool {
				return r.Path == tt.path && r.Follow == tt.follow && r.Access == ReadOnly
			})
			if has != tt.want {
				t.Errorf("a read-only rule on %s (follow %v): %v, want %v; rules %+v", tt.path, tt.follow, has, tt.want, got)
			}
		})
	}
}

// TestLandlockSystemRulesUnlisted: a /proc that cannot be listed leaves
// the command its own folder and nothing else of /proc.
func TestLandlockSystemRulesUnlisted(t *testing.T) {
	fsys := newFakeFS("/etc/")
	fsys.denied["/proc"] = true
	for _, r := range LandlockSystemRules(fsys) {
		if r.Path != procSelf && (r.Path == procRoot || len(r.Path) > len(procRoot) && r.Path[:len(procRoot)+1] == procRoot+"/") {
			t.Errorf("rule %+v on /proc", r)
		}
	}
}
