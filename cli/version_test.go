package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"pathgrant/internal/buildcheck"
)

// withSettings is build information with the given key=value settings.
func withSettings(goVersion string, kv ...string) *debug.BuildInfo {
	info := &debug.BuildInfo{GoVersion: goVersion}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		info.Settings = append(info.Settings, debug.BuildSetting{Key: k, Value: v})
	}
	return info
}

func TestDescribeBuild(t *testing.T) {
	here := runtime.GOOS + "/" + runtime.GOARCH
	cases := []struct {
		name    string
		release string
		info    *debug.BuildInfo
		want    string
	}{
		{"a release built from a clean checkout", "1.2.3",
			withSettings("go1.26.8", "vcs.revision=0123456789abcdef0123", "vcs.modified=false", "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0"),
			"pathgrant 1.2.3 (commit 0123456789ab; go1.26.8 linux/amd64, cgo off)"},
		{"a modified checkout", "1.2.3",
			withSettings("go1.26.8", "vcs.revision=0123456789abcdef0123", "vcs.modified=true", "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=1"),
			"pathgrant 1.2.3 (commit 0123456789ab, modified; go1.26.8 linux/amd64, cgo on)"},
		{"no link-time version is a developer's build", "",
			withSettings("go1.26.8", "vcs.revision=abc", "GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=0"),
			"pathgrant devel (commit abc; go1.26.8 darwin/arm64, cgo off)"},
		{"built without VCS stamping", "1.2.3",
			withSettings("go1.26.8", "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0"),
			"pathgrant 1.2.3 (commit unknown; go1.26.8 linux/arm64, cgo off)"},
		{"no build information at all", "", nil,
			"pathgrant devel (commit unknown; " + runtime.Version() + " " + here + ", cgo unknown)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := describeBuild(c.release, c.info); got != c.want {
				t.Errorf("describeBuild = %q, want %q", got, c.want)
			}
		})
	}
}

func TestVersionCommand(t *testing.T) {
	cases := []struct {
		name        string
		args        []string
		code        int
		out, errOut string // substrings of stdout and stderr
	}{
		{"the line", []string{"version"}, exitOK, "pathgrant devel (", ""},
		{"help", []string{"version", "-h"}, exitOK, versionUsageText, ""},
		{"an argument", []string{"version", "extra"}, exitUsage, "", `unexpected argument "extra"`},
		{"a flag", []string{"version", "--json"}, exitUsage, "", "flag provided but not defined"},
		{"a socket, which version never reaches", []string{"--socket", "/tmp/x.sock", "version"}, exitUsage, "", "--socket does not apply"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main(c.args, strings.NewReader(""), &out, &errOut)
			if code != c.code || !strings.Contains(out.String(), c.out) || !strings.Contains(errOut.String(), c.errOut) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, stdout with %q, stderr with %q",
					code, out.String(), errOut.String(), c.code, c.out, c.errOut)
			}
		})
	}
}

// TestVersionStampedAtLinkTime builds pathgrant as scripts/package does,
// the version given with -ldflags -X, and runs `version` and `doctor`:
// the stamp reaches both, and doctor's first line carries it.
func TestVersionStampedAtLinkTime(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pathgrant")
	}
	const release = "9.8.7-test"
	bin := filepath.Join(t.TempDir(), "pathgrant")
	build := exec.Command(buildcheck.GoTool(), "build", "-o", bin, "-ldflags", "-X pathgrant/cli.version="+release, "pathgrant")
	build.Env = append(append(os.Environ(), goCaches...), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	want := "pathgrant " + release + " ("
	t.Run("version", func(t *testing.T) {
		out, err := exec.Command(bin, "version").Output()
		line := strings.TrimSuffix(string(out), "\n")
		if err != nil || !strings.HasPrefix(line, want) || !strings.HasSuffix(line, ", cgo off)") || strings.Contains(line, "\n") {
			t.Errorf("pathgrant version: %v, %q; want one line starting %q, ending \", cgo off)\"", err, out, want)
		}
	})
	t.Run("doctor's first line", func(t *testing.T) {
		dir := t.TempDir()
		cmd := exec.Command(bin, "doctor", "--socket", dir+"/none.sock", "--store", dir+"/pathgrant.db")
		cmd.Env = append(os.Environ(), "HOME="+dir)
		out, _ := cmd.Output() // exit 1: no daemon runs on that socket
		first, _, _ := strings.Cut(string(out), "\n")
		if !strings.HasPrefix(first, "version ") || !strings.Contains(first, want) {
			t.Errorf("doctor's first line %q, want the version line with %q", first, want)
		}
	})
}
