package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"pathgrant/internal/buildcheck"
)

// goCaches are the go command's build and module caches, read when the
// test binary starts: a test that changes HOME must not send `go build` to
// empty caches (a cold build of the Fyne-linked binary takes minutes).
var goCaches = func() []string {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return nil
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(v) != 3 {
		return nil
	}
	return []string{"GOCACHE=" + v[0], "GOMODCACHE=" + v[1], "GOPATH=" + v[2]}
}()

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// buildBinary builds the pathgrant binary, with exec's lean inner step
// (pathgrant-confine) next to it as scripts/run puts it, once per test run
// and returns its path; under scripts/test-user, the prebuilt one
// (buildcheck.BinDirEnv).
func buildBinary(t testing.TB) string {
	t.Helper()
	if p := buildcheck.Prebuilt(t, "pathgrant"); p != "" {
		return p
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pathgrant-test-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "pathgrant")
		// Built as scripts/run builds them: static, no cgo, so they start fast.
		cmd := exec.Command("go", "build", "-o", dir+"/", "pathgrant", "pathgrant/cmd/pathgrant-confine", "pathgrant/cmd/pathgrant-hook")
		cmd.Env = append(append(os.Environ(), goCaches...), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = &buildError{err: err, out: string(out)}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + e.out }
