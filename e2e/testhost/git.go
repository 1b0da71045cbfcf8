//go:build linux

package testhost

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// repoName is the one repository the host serves, over HTTPS under /git/
// and over ssh.
const repoName = "repo.git"

// readme is the one file of the repository's one commit.
const readme = "test host repo\n"

// gitRepo is the bare repository and the environment every git the host
// runs gets: no system or user configuration, so what the machine's
// person configured cannot change what the host serves.
type gitRepo struct {
	root string // the folder holding repoName, git's project root
	bin  string // git's path: cgi.Handler runs a path, not a name
	env  []string
}

// dir is the bare repository.
func (g *gitRepo) dir() string { return filepath.Join(g.root, repoName) }

// makeGitRepo makes the bare repository under root with one commit, by
// plumbing alone: no work tree, no hooks, nothing of the user's config.
func makeGitRepo(root string) (*gitRepo, error) {
	bin, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("finding git: %w", err)
	}
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, fmt.Errorf("making git's home: %w", err)
	}
	g := &gitRepo{root: root, bin: bin, env: []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_AUTHOR_NAME=pathgrant test host", "GIT_AUTHOR_EMAIL=testhost@pathgrant.test",
		"GIT_COMMITTER_NAME=pathgrant test host", "GIT_COMMITTER_EMAIL=testhost@pathgrant.test",
		"GIT_AUTHOR_DATE=2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z",
	}}
	if _, err := g.run("", "init", "--quiet", "--bare", g.dir()); err != nil {
		return nil, err
	}
	if err := g.commitReadme(); err != nil {
		return nil, err
	}
	return g, nil
}

// commitReadme writes the README blob, its tree and a commit, and points
// main and HEAD at it.
func (g *gitRepo) commitReadme() error {
	blob, err := g.git(readme, "hash-object", "-w", "--stdin")
	if err != nil {
		return err
	}
	tree, err := g.git("100644 blob "+blob+"\tREADME\n", "mktree")
	if err != nil {
		return err
	}
	commit, err := g.git("", "commit-tree", tree, "-m", "test host repo")
	if err != nil {
		return err
	}
	if _, err := g.git("", "update-ref", "refs/heads/main", commit); err != nil {
		return err
	}
	_, err = g.git("", "symbolic-ref", "HEAD", "refs/heads/main")
	return err
}

// git runs git on the bare repository with stdin and returns its trimmed
// stdout.
func (g *gitRepo) git(stdin string, args ...string) (string, error) {
	return g.run(stdin, append([]string{"--git-dir=" + g.dir()}, args...)...)
}

// run runs git in g's environment with stdin and returns its trimmed
// stdout.
func (g *gitRepo) run(stdin string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(g.bin, args...)
	cmd.Env = g.env
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// httpHandler serves the repository under /git/ with git's own smart HTTP
// server, so a client meets the real protocol rather than an imitation.
func (g *gitRepo) httpHandler() http.Handler {
	return &cgi.Handler{
		Path: g.bin,
		Root: "/git",
		Dir:  g.root,
		Args: []string{"http-backend"},
		Env:  append([]string{"GIT_PROJECT_ROOT=" + g.root, "GIT_HTTP_EXPORT_ALL=1"}, g.env...),
	}
}

// noGit answers every git request when the machine has no git: the host
// still serves everything else, and a client sees why in the body.
func noGit(w http.ResponseWriter, _ *http.Request) {
	http.Error(w, "git is not installed on this machine", http.StatusServiceUnavailable)
}
