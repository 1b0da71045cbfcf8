// Package afterrun checks a workspace after a confined command, for what
// the mount view cannot stop at wrap time: a repository made during the
// command (git init, a hand-made .git folder or file, a bare repository,
// a gitdir: pointer, a commondir), at any depth, and members of the
// protected set created where the view could not hold their place.
// Whatever in them would make the person's own tools run code is
// neutralised (moved aside or made inert) and reported, one line each:
// never silently.
//
// The check is the daemon's (engine), never the front end's: a front end
// can be killed with its command's process group, and a promise must not
// live in a process the agent can kill. The daemon records a Plan when it
// prepares a command and runs Check when the command ends, or when its
// front end is gone without saying so.
//
// Nothing here gives up part way: the walk has no bound on entries or
// depth (an agent could pad a workspace past any bound), a folder the
// command made unreadable is made readable again (pathgrant's user owns
// the workspace), a move aside never replaces anything, and whatever
// cannot be checked or neutralised is a failure of the check (Check's
// error), which the daemon turns into a refusal of the session's next
// command. The package links the standard library, x/sys and
// guard/protected only (no regexp, net or os/exec).
package afterrun

// Quarantined marks the name a neutralised file is renamed to:
// NAME.pathgrant-quarantined, or NAME.pathgrant-quarantined-XXXXXXXX when
// that name is taken.
const Quarantined = ".pathgrant-quarantined"

// Finding is one thing neutralised, or one place that could not be
// checked.
type Finding struct {
	Path   string
	Action string
}

func (f Finding) String() string { return "pathgrant: " + f.Path + ": " + f.Action }

// Report is what Check found.
type Report struct {
	// Findings are what was neutralised (or made readable again).
	Findings []Finding
	// Failures are what could not be checked or neutralised: each makes
	// the check fail.
	Failures []Finding
	// Entries is how many directory entries the walk looked at.
	Entries int
}

// Lines are the findings and failures, one line each, for the agent.
func (r Report) Lines() []string {
	out := make([]string, 0, len(r.Findings)+len(r.Failures))
	for _, f := range r.Findings {
		out = append(out, f.String())
	}
	for _, f := range r.Failures {
		out = append(out, f.String())
	}
	return out
}

func (r *Report) add(path, action string)  { r.Findings = append(r.Findings, Finding{path, action}) }
func (r *Report) fail(path, action string) { r.Failures = append(r.Failures, Finding{path, action}) }
