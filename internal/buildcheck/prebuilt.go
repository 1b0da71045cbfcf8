package buildcheck

import (
	"os"
	"path/filepath"
	"testing"
)

// BinDirEnv names a folder of binaries built beforehand as scripts/run
// builds them (pathgrant, pathgrant-confine, pathgrant-hook). scripts/test-user
// sets it: the ordinary user it runs the security suites as has neither the
// go command's caches nor the modules, so its tests run what was built for
// them instead of building.
const BinDirEnv = "PATHGRANT_TEST_BINDIR"

// Prebuilt returns the path of the binary name in $PATHGRANT_TEST_BINDIR,
// or "" when the variable is unset (the test builds it). A folder named but
// lacking the binary fails the test: a run that was meant to use prebuilt
// binaries must not quietly build or skip instead.
func Prebuilt(t testing.TB, name string) string {
	t.Helper()
	dir := os.Getenv(BinDirEnv)
	if dir == "" {
		return ""
	}
	path := filepath.Join(dir, name)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("%s=%s: %v", BinDirEnv, dir, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("%s=%s: %s is not an executable file", BinDirEnv, dir, name)
	}
	return path
}
