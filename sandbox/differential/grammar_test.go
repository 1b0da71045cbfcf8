package differential

import (
	"math/rand/v2"
	"strings"
)

// grammar generates shell commands over the scratch tree (tree.go): paths
// inside the workspace, in the read-only area, in the Downloads-like
// eligible area (one file granted), in the secret area, and through links,
// both links on disk and links the command itself makes.
type grammar struct {
	r *rand.Rand
}

// paths a command may name, relative to the workspace (the command's
// starting directory) or through ~ (the tree's root is $HOME).
var (
	insidePaths = []string{"a.txt", "src/b.txt", "src", "sub", "new.txt", "sub/new", "./a.txt",
		"../work/a.txt", "~/work/src/b.txt", "d1", "d1/f", "l1", "l2", "sub/l3", "l1/x", "l2/key",
		"/proc/self/cwd/a.txt", "src/../a.txt", "~+/a.txt", "~-/a.txt"}
	outsidePaths = []string{"~/ro/doc.md", "../ro/doc.md", "~/ro", "~/dl/report.csv", "~/dl/granted.csv",
		"../dl", "~/secret/key", "../secret", "link_out/key", "link_ro/doc.md", "link_out", "link_ro",
		"link_dl/granted.csv", "/proc/self/root/tmp", "~/ro/../secret/key", "link_sub/../key"}
	linkTargets = []string{"a.txt", "src", "../ro", "../secret", "../secret/key", "~/ro/doc.md", "~/secret",
		"~/dl/granted.csv", "/proc/self/cwd", "../dl", "sub", "link_out", "."}
	dirs = []string{"src", "sub", "..", "-", "~/ro", "~/secret", "link_out", "link_ro", "d1", "l1", "/proc/self/cwd/src", "~/dl"}
)

func (g *grammar) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *grammar) path() string {
	if g.r.IntN(3) == 0 {
		return g.pick(outsidePaths)
	}
	return g.pick(insidePaths)
}

func (g *grammar) newName() string {
	return g.pick([]string{"l1", "l2", "sub/l3", "d1", "new.txt", "sub/new"})
}

// simple returns one simple command.
func (g *grammar) simple() string {
	p, q := g.path(), g.path()
	forms := []func() string{
		func() string { return "cat " + p },
		func() string { return "head -n1 " + p },
		func() string { return "tail -n 1 " + p },
		func() string { return "wc -l " + p },
		func() string { return "cp " + p + " " + q },
		func() string { return "cp -r " + p + " " + g.newName() },
		func() string { return "cp -a " + p + " " + g.newName() },
		func() string { return "mv " + p + " " + g.newName() },
		func() string { return "mv " + g.newName() + " " + q },
		func() string { return "ln -s " + g.pick(linkTargets) + " " + g.newName() },
		func() string { return "ln -sf " + g.pick(linkTargets) + " " + g.newName() },
		func() string { return "ln " + p + " " + g.newName() },
		func() string { return "cp -s " + g.pick(linkTargets) + " " + g.newName() },
		func() string { return "rm -f " + p },
		func() string { return "rm -rf " + g.newName() },
		func() string { return "mkdir -p " + g.newName() },
		func() string { return "touch " + p },
		func() string { return "sed -n 1p " + p },
		func() string { return "sed -i s/x/y/ " + p },
		func() string { return "sed 'w " + q + "' " + p },
		func() string { return "awk '{print}' " + p },
		func() string { return "awk '{print > \"" + q + "\"}' " + p },
		func() string { return "echo x | tee " + p },
		func() string { return "echo x > " + p },
		func() string { return "echo x >> " + p },
		func() string { return "cat < " + p },
		func() string { return "cd " + g.pick(dirs) },
		func() string { return "pushd " + g.pick(dirs) },
		func() string { return "popd" },
		func() string { return "ls " + p },
		func() string { return "grep -r x " + p },
		func() string { return "test -e " + p },
		func() string { return "env -C " + g.pick(dirs) + " cat " + p },
	}
	return forms[g.r.IntN(len(forms))]()
}

// command returns a command line of up to depth levels of lists,
// pipelines, subshells, groups and bash -c.
func (g *grammar) command(depth int) string {
	if depth == 0 || g.r.IntN(3) == 0 {
		return g.simple()
	}
	a, b := g.command(depth-1), g.command(depth-1)
	switch g.r.IntN(7) {
	case 0:
		return a + " && " + b
	case 1:
		return a + " || " + b
	case 2:
		return a + "; " + b
	case 3:
		return a + " | " + b
	case 4:
		return "(" + a + "); " + b
	case 5:
		return "{ " + a + "; } && " + b
	}
	if strings.Contains(a, "'") {
		return a + " && " + b
	}
	return "bash -c '" + a + "' && " + b
}
