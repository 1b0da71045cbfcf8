// Package buildcheck lets a binary's tests check what the binary links:
// the hook and exec's inner step sit on the path of every agent call, so
// their tests hold their dependencies to a short list.
package buildcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// GoTool is the go command of the toolchain running the tests, else the
// one on PATH.
func GoTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Deps lists every package pkg links when built as scripts/run builds it:
// static, without cgo.
func Deps(t testing.TB, pkg string) []string {
	t.Helper()
	cmd := exec.Command(GoTool(), "list", "-deps", pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}
