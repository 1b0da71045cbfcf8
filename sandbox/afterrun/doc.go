// Package afterrun checks a workspace after a confined command, for what
// the mount view cannot stop at wrap time: a repository made during the
// command (git init, a hand-made .git folder or file, a bare repository,
// a gitdir: pointer), at any depth, and members of the protected set
// created where the view could not hold their place. Whatever in them
// would make the person's own tools run code is neutralised (moved aside
// or made inert) and reported, one line each: never silently.
//
// It also removes the empty placeholders the view's mounts left in the
// workspace (RemovePlaceholders).
//
// The package links the standard library and guard/protected only (no
// regexp, net or os/exec) so that the lean front end can call it.
package afterrun

// Quarantined is the suffix a neutralised file is renamed with.
const Quarantined = ".pathgrant-quarantined"

// Finding is one thing neutralised, or one place that could not be
// checked.
type Finding struct {
	Path   string
	Action string
}

func (f Finding) String() string { return "pathgrant: " + f.Path + ": " + f.Action }

// Report is what Verify found.
type Report struct {
	Findings []Finding
	// Entries is how many directory entries the walk looked at.
	Entries int
}

// Lines are the findings, one line each, for the front end to print.
func (r Report) Lines() []string {
	out := make([]string, len(r.Findings))
	for i, f := range r.Findings {
		out[i] = f.String()
	}
	return out
}

func (r *Report) add(path, action string) { r.Findings = append(r.Findings, Finding{path, action}) }
