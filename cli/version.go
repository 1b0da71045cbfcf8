package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

const versionUsageText = "usage: pathgrant version"

// version is the release this binary was built as, stamped at link time
// by scripts/package (go build -ldflags "-X pathgrant/cli.version=1.2.3");
// a build without it is a developer's and says "devel". It is only ever
// read.
var version string

// runVersion implements `pathgrant version`: one line naming the release,
// the commit and how the binary was built, the line a bug report quotes
// and doctor's first line carries.
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version")
	pos, err := parseFlags(fs, args)
	if err == nil && len(pos) > 0 {
		err = usagef("unexpected argument %q", pos[0])
	}
	if err != nil {
		return parseFailed("version", versionUsageText, err, stdout, stderr)
	}
	fmt.Fprintln(stdout, versionLine())
	return exitOK
}

// versionLine describes this binary, read from its link-time version and
// the build information the go command embeds.
func versionLine() string {
	info, _ := debug.ReadBuildInfo() // nil when the binary carries none
	return describeBuild(version, info)
}

// describeBuild is the version line for release (empty: "devel") and the
// embedded build information info (nil when the binary carries none):
//
//	pathgrant 1.2.3 (commit 0123456789ab, modified; go1.26.8 linux/amd64, cgo off)
//
// A field the build did not record says "unknown" rather than guessing:
// a binary built without VCS stamping (-buildvcs=false, or outside a git
// checkout) has no commit.
func describeBuild(release string, info *debug.BuildInfo) string {
	if release == "" {
		release = "devel"
	}
	s := buildSettings(info)
	commit := "commit unknown"
	if rev := s["vcs.revision"]; rev != "" {
		commit = "commit " + rev[:min(12, len(rev))]
	}
	if s["vcs.modified"] == "true" {
		commit += ", modified"
	}
	goVersion := runtime.Version()
	if info != nil && info.GoVersion != "" {
		goVersion = info.GoVersion
	}
	platform := or(s["GOOS"], runtime.GOOS) + "/" + or(s["GOARCH"], runtime.GOARCH)
	return fmt.Sprintf("pathgrant %s (%s; %s %s, cgo %s)", release, commit, goVersion, platform, cgoState(s))
}

// buildSettings indexes info's settings by key; nil info has none.
func buildSettings(info *debug.BuildInfo) map[string]string {
	s := map[string]string{}
	if info == nil {
		return s
	}
	for _, kv := range info.Settings {
		s[kv.Key] = kv.Value
	}
	return s
}

// cgoState says whether the binary links C: the static binaries must say
// off, the app on.
func cgoState(s map[string]string) string {
	switch strings.TrimSpace(s["CGO_ENABLED"]) {
	case "1":
		return "on"
	case "0":
		return "off"
	}
	return "unknown"
}

// or returns v, else fallback when v is empty.
func or(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}
