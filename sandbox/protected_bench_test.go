package sandbox_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"pathgrant/sandbox"
	"pathgrant/wire"
)

// BenchmarkViewProtected is what the protected set costs a confined
// command: building the view of a workspace holding a repository (the
// repository search included), and bubblewrap running `true` in it,
// against the same view without the protected set's mounts
// (go test ./sandbox -run '^$' -bench ViewProtected).
func BenchmarkViewProtected(b *testing.B) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		b.Skip("no bubblewrap")
	}
	ws := b.TempDir()
	cmd := exec.Command("sh", "-ec", "git init -q . && mkdir -p sub/deep && git -C sub/deep init -q && for i in $(seq 200); do mkdir -p d$i; touch d$i/f; done")
	cmd.Dir, cmd.Env = ws, personEnv(b.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	in := sandbox.Input{Policy: wire.Policy{Session: "s", Workspace: []string{ws}, Protected: daemonProtected(ws)}, System: sandbox.SystemRules()}
	var view, tmpfsView sandbox.View
	empty := sandbox.EmptyDirIn(b.TempDir())
	b.Run("build view", func(b *testing.B) {
		for b.Loop() {
			v, err := sandbox.BuildView(in, sandbox.ViewConfig{EmptyDir: empty}, sandbox.NewMemoFS(sandbox.OSFS{}))
			if err != nil {
				b.Fatal(err)
			}
			view = v
		}
	})
	tmpfsView, _ = sandbox.BuildView(in, sandbox.ViewConfig{}, sandbox.NewMemoFS(sandbox.OSFS{}))
	bare := view
	bare.Mounts = slices.DeleteFunc(slices.Clone(view.Mounts), func(m sandbox.Mount) bool { return strings.HasPrefix(m.Why, "protected") || m.Why == "pinned" })
	b.Logf("mounts: %d with the protected set, %d without", len(view.Mounts), len(bare.Mounts))
	for _, v := range []struct {
		name string
		view sandbox.View
	}{{"bwrap true, protected set", view}, {"bwrap true, protected set with a tmpfs per place", tmpfsView}, {"bwrap true, without", bare}} {
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				c := exec.Command("bwrap", slices.Concat(v.view.Options(os.Geteuid() == 0), []string{"--", "/bin/true"})...)
				if out, err := c.CombinedOutput(); err != nil {
					b.Fatalf("%v %s", err, out)
				}
			}
		})
	}
}
