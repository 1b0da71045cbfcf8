package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// goSeed is a build cache holding the standard library as a confined
// `go build` of a small program needs it, made once per test binary.
var goSeed struct {
	once sync.Once
	dir  string
	err  error
}

// seedGoCache copies the seed into cache, a walk's own build cache:
// its confined go build then compiles and links only its own package,
// still reading and writing the cache in the view, instead of the
// whole runtime again in every walk (a minute and a half of CPU across
// the door walk's doors).
func seedGoCache(t *testing.T, cache string) {
	t.Helper()
	goSeed.once.Do(func() { goSeed.dir, goSeed.err = makeGoSeed() })
	if goSeed.err != nil {
		t.Fatal(goSeed.err)
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", goSeed.dir+"/go-build/.", cache+"/").CombinedOutput(); err != nil {
		t.Fatalf("seed the build cache: %v\n%s", err, out)
	}
}

// makeGoSeed builds a program other than the walks' (so that theirs is
// compiled in the view) with the environment goEnv gives them.
func makeGoSeed() (string, error) {
	dir, err := os.MkdirTemp("", "pathgrant-test-goseed-")
	if err != nil {
		return "", err
	}
	mod := filepath.Join(dir, "mod")
	if err := os.MkdirAll(mod, 0o700); err != nil {
		return dir, err
	}
	for name, text := range map[string]string{
		"go.mod":  "module seed\ngo 1.21\n",
		"main.go": "package main\n\nfunc main() { println(\"seed\") }\n",
	} {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o600); err != nil {
			return dir, err
		}
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "seed"), ".")
	build.Dir = mod
	build.Env = append(os.Environ(), "GOCACHE="+dir+"/go-build", "GOMODCACHE="+dir+"/mod-cache", "GOPATH="+dir+"/gopath",
		"GOTOOLCHAIN=local", "GOFLAGS=", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return dir, fmt.Errorf("seed the build cache: go build: %v\n%s", err, out)
	}
	return dir, nil
}
