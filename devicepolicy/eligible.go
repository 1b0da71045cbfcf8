package devicepolicy

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
)

// neverEligibleRel are the folders under the home folder that hold
// configuration and state, and the agents' own homes (their credentials
// and session logs): never offered for approval, whatever a user folder
// or the file says. The credential folders (forbiddenRel) are never
// offered either.
var neverEligibleRel = []string{
	".config", ".local/share", ".local/state",
	".claude", ".claude.json", ".codex", ".gemini", ".cursor", ".pi", ".copilot", ".factory", ".qwen", ".cline", ".opencode",
}

// neverEligibleDarwinRel is macOS's place for the same: all of ~/Library
// (preferences, application state, keychains, containers).
var neverEligibleDarwinRel = []string{"Library"}

// NeverEligible lists the folders no read under which is ever offered for
// approval, on this system: the credential, browser and password folders
// (Forbidden), the configuration and state folders and the agents' homes
// under the home folder, and env.Own (pathgrant's config, state and
// runtime folders and the XDG homes wherever the environment moves them).
// The guard refuses to offer them even under an eligible root, and a
// file naming one as eligible is refused.
func NeverEligible(env Env) []string { return neverEligibleOn(runtime.GOOS, env) }

// neverEligibleOn is NeverEligible for the system goos.
func neverEligibleOn(goos string, env Env) []string {
	rel := neverEligibleRel
	if goos == "darwin" {
		rel = slices.Concat(neverEligibleRel, neverEligibleDarwinRel)
	}
	out := forbiddenOn(goos, env.Home)
	for _, r := range rel {
		out = append(out, filepath.Join(env.Home, r))
	}
	for _, o := range env.Own {
		if o != "" && !slices.Contains(out, o) {
			out = append(out, filepath.Clean(o))
		}
	}
	return out
}

// defaultEligible are the person's own folders (env.UserFolders; an Env
// built without them has its Downloads alone) less any that is, lies in or
// holds a folder never offered: a user-dirs.dirs entry pointing into
// ~/.config is left out, not offered.
func defaultEligible(env Env, never []string) []string {
	folders := env.UserFolders
	if folders == nil && env.Downloads != "" {
		folders = []string{env.Downloads}
	}
	var out []string
	for _, f := range folders {
		if f != "" && ownFolder(filepath.Clean(f), env.Home, never) {
			out = append(out, filepath.Clean(f))
		}
	}
	return outermost(out)
}

// ownFolder reports whether user folder f may be eligible: neither f nor
// the folder it leads to (a user folder may be a link: ~/Desktop -> ~,
// ~/Documents -> ~/.ssh) is, lies in or holds a folder never offered, or
// holds the home folder, each compared as written and as the links lead
// (the home folder may be a link too). The guard and the held-open view
// take the folder a link leads to as the root, so a link to the home
// folder would make every file in it eligible and serve it whole.
func ownFolder(f, home string, never []string) bool {
	if neverOverlap(f, never) != "" {
		return false
	}
	var homes []string
	if home != "" {
		homes = forms(home)
	}
	for _, p := range forms(f) {
		if slices.ContainsFunc(homes, func(h string) bool { return within(p, h) }) {
			return false
		}
	}
	return true
}

// neverOverlap is the folder never offered that r is, lies in or holds,
// each compared as written and as the links on its way lead (a root the
// policy file lists may be a link too: /data/keys -> ~/.ssh would serve
// the keys' names in every command's view); "" when none.
func neverOverlap(r string, never []string) string {
	var nevers []string
	for _, n := range never {
		nevers = append(nevers, forms(n)...)
	}
	for _, p := range forms(r) {
		if bad := forbiddenOverlap(p, nevers); bad != "" {
			return bad
		}
	}
	return ""
}

// forms is p clean, and where a link on its way leads elsewhere, the
// path it leads to as well.
func forms(p string) []string {
	p = filepath.Clean(p)
	if c, err := filepath.EvalSymlinks(p); err == nil && c != p {
		return []string{p, c}
	}
	return []string{p}
}

// outermost drops each root that lies in another (it adds nothing to
// what is eligible, and the held-open file system serves each root as a
// folder of its own), keeping the first of equal ones, in order.
func outermost(roots []string) []string {
	var out []string
	for i, r := range roots {
		inner := slices.ContainsFunc(roots, func(o string) bool { return o != r && within(o, r) }) ||
			slices.Contains(roots[:i], r)
		if !inner {
			out = append(out, r)
		}
	}
	return out
}

// eligible settles the file's eligible roots: listed says whether the file
// gave eligible_read_only (the whole list then, as before user_folders
// existed, unless user_folders = true adds the person's folders to it);
// without it the person's folders are eligible unless user_folders =
// false. A listed root that is, lies in or holds a folder never offered
// is an error; the person's folders that do are left out.
func (p *Policy) eligible(env Env, listed bool, at func(string) string) error {
	never := NeverEligible(env)
	for _, r := range p.EligibleReadOnly {
		if bad := neverOverlap(r, never); bad != "" {
			return fmt.Errorf("%seligible_read_only: %s is never offered for approval: it holds or lies in %s "+
				"(credentials, configuration or state, an agent's or pathgrant's own folder)", at(r), r, bad)
		}
	}
	if p.UserFolders == nil {
		p.UserFolders = boolPtr(!listed)
	}
	if *p.UserFolders {
		p.EligibleReadOnly = append(p.EligibleReadOnly, defaultEligible(env, never)...)
	}
	p.EligibleReadOnly = outermost(p.EligibleReadOnly)
	if p.EligibleReadOnly == nil {
		p.EligibleReadOnly = []string{}
	}
	p.NeverEligible = never
	return nil
}

func boolPtr(b bool) *bool { return &b }
