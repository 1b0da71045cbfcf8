package protected

import "strings"

// Exists reports whether a path exists (links not followed). Match asks
// it only about HEAD and git members next to a path, to tell a git
// directory that is not named .git (a gitdir: target, a bare repository)
// from a folder that merely holds a file named config.
type Exists func(path string) bool

// Match returns the member that the absolute, clean path is or lies in:
//
//   - a component that is an Anywhere member (.vscode, .mcp.json, …);
//   - the entry after a .git component that is a git member
//     (.git/config, sub/.git/hooks/x), or a .git entry itself;
//   - the entry after a folder holding HEAD or commondir (a git directory
//     by its content) that is a git member;
//   - a HEAD file in a folder not named .git that already holds a git
//     member.
//
// Names compare case-insensitively. Members open says are skipped. The
// benign twins stay out: src/config, docs/hooks/x.md, .github/…,
// gitconfig.md, .git-blame-ignore-revs, .git/objects/…, .git/HEAD.
func Match(path string, exists Exists, open func(Member) bool) (Member, bool) {
	if open == nil {
		open = func(Member) bool { return false }
	}
	comps := strings.Split(strings.TrimPrefix(path, "/"), "/")
	hit := func(m Member, ok bool) bool { return ok && !open(m) }
	for i, c := range comps {
		last := i == len(comps)-1
		if m, ok := AnywhereNamed(c); hit(m, ok) {
			return m, true
		}
		dir := "/" + strings.Join(comps[:i+1], "/")
		switch {
		case IsGitName(c) && last:
			if hit(GitEntry, true) {
				return GitEntry, true
			}
		case last:
		case IsGitName(c) || (isGitMemberName(comps[i+1]) && exists != nil && gitDirByContent(dir, exists)):
			if m, ok := GitNamed(comps[i+1]); hit(m, ok) {
				return m, true
			}
		}
	}
	if n := len(comps); n >= 2 && comps[n-1] == "HEAD" && !IsGitName(comps[n-2]) && exists != nil {
		dir := "/" + strings.Join(comps[:n-1], "/")
		if holdsGitMember(dir, exists) && hit(HeadEntry, true) {
			return HeadEntry, true
		}
	}
	return Member{}, false
}

func isGitMemberName(name string) bool {
	_, ok := GitNamed(name)
	return ok
}

// gitDirByContent reports whether dir is a git directory by what it
// holds: git accepts a folder with HEAD (and objects and refs) as one,
// and a linked worktree's with commondir.
func gitDirByContent(dir string, exists Exists) bool {
	return exists(dir+"/HEAD") || exists(dir+"/commondir")
}

// holdsGitMember reports whether dir holds an entry named like a git
// member (in the case git writes them).
func holdsGitMember(dir string, exists Exists) bool {
	for _, m := range members {
		if m.Kind == GitMember && exists(dir+"/"+m.Name) {
			return true
		}
	}
	return false
}
