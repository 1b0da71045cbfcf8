package seatbelt

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Kind is what a step makes of its place and of everything below it.
type Kind int

// The kinds of step, one per kind of mount in the view.
const (
	// Hidden: nothing there is read, written, run or connected to (the
	// view's hidden folders and sockets).
	Hidden Kind = iota + 1
	// Names: names and metadata only, never contents, nothing written
	// (the view's approvable roots, its links to toolchains).
	Names
	// Read: read and connected to, not written (read-only roots, read
	// grants, read-only files).
	Read
	// ReadExec: read and run, not written (toolchains).
	ReadExec
	// ReadWrite: read, run and written, the place itself neither removed
	// nor renamed, as a mount point cannot be (workspaces, caches, the
	// session's tmp dir, the folders the view pins on the way to a
	// protected path).
	ReadWrite
	// NoWrite: as the steps before left it, but nothing there is
	// written, created, removed, renamed or linked (protected paths,
	// present or absent).
	NoWrite
	// Socket: the Unix socket there is connected to (the ssh agent's,
	// when the device policy allows it).
	Socket
)

var kindNames = map[Kind]string{Hidden: "hidden", Names: "names", Read: "read", ReadExec: "read-exec",
	ReadWrite: "read-write", NoWrite: "no-write", Socket: "socket"}

func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// allows reports whether the kind lets something at its place be seen:
// the folders above it are then looked at (their metadata).
func (k Kind) allows() bool { return k != Hidden && k != NoWrite }

// Step is one place of the view: Kind for Path (absolute, as the kernel
// resolves it: /private/var, not /var) and everything below it, until a
// later step says otherwise.
type Step struct {
	Path string
	Kind Kind
	// Why names the part of the policy it comes from (the mount's).
	Why string
}

// Input is what a profile is made from.
type Input struct {
	// Steps are the view, in its order: a later step covers an earlier
	// one.
	Steps []Step
	// Developer is the developer folder xcode-select chose, read and run
	// (/usr/bin's git, make and cc run from it); "" when there is none.
	Developer string
	// Terminals are the terminals on the command's standard streams
	// (/dev/tty*), read and written by name.
	Terminals []string
}

// Profile writes in's profile: (version 1), (deny default), the system
// rules, the metadata of every folder above a place the profile shows,
// then the steps. The same input gives the same text. A path that cannot
// be written safely (ErrUnsafe), a step of no known kind or a terminal
// that is not a /dev/tty* device refuses the whole profile.
func Profile(in Input) (string, error) {
	steps := slices.Clone(in.Steps)
	if in.Developer != "" {
		steps = slices.Insert(steps, 0, Step{Path: in.Developer, Kind: ReadExec, Why: "developer folder (xcode-select)"})
	}
	var b strings.Builder
	b.WriteString("(version 1)\n(deny default)\n")
	for _, r := range systemRules() {
		writeRule(&b, r)
	}
	if err := writeTerminals(&b, in.Terminals); err != nil {
		return "", err
	}
	if err := writeAncestors(&b, steps, in.Terminals); err != nil {
		return "", err
	}
	b.WriteString("\n;; The session's view, a step at a time: a later step covers an earlier one.\n")
	for _, s := range steps {
		rs, err := s.rules()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, ";; %s: %s\n", comment(s.Why), comment(s.Path))
		for _, r := range rs {
			writeRule(&b, r)
		}
	}
	return b.String(), nil
}

// writeRule writes r (after its comment, when it has one) on one line.
func writeRule(b *strings.Builder, r rule) {
	if r.why != "" {
		fmt.Fprintf(b, "\n;; %s\n", r.why)
	}
	fmt.Fprintf(b, "(%s %s", r.verb, strings.Join(r.ops, " "))
	for _, f := range r.filters {
		b.WriteString(" " + f)
	}
	b.WriteString(")\n")
}

// writeTerminals lets the command read and write its own terminals by
// name (and ask them their size).
func writeTerminals(b *strings.Builder, terms []string) error {
	var fs []string
	for _, t := range terms {
		q, err := quote(t)
		switch {
		case err != nil:
			return fmt.Errorf("terminal: %w", err)
		case !strings.HasPrefix(t, "/dev/tty"):
			return fmt.Errorf("terminal %q is not a terminal device: %w", t, ErrUnsafe)
		}
		fs = append(fs, "(literal "+q+")")
	}
	if len(fs) > 0 {
		writeRule(b, rule{"The terminals on the command's standard streams.", "allow",
			[]string{"file-read*", "file-write-data", "file-ioctl"}, fs})
	}
	return nil
}

// writeAncestors lets the command look at (stat, never list) every folder
// above a place it can see, as it could in the Linux view, where each
// folder on the way to a mount is there: realpath, getcwd and the
// programs that check each folder of a path need it.
func writeAncestors(b *strings.Builder, steps []Step, terms []string) error {
	var places []string
	for _, s := range steps {
		if s.Kind.allows() {
			places = append(places, s.Path)
		}
	}
	seen := map[string]bool{}
	for _, p := range slices.Concat(systemPaths(), terms, places) {
		for d := filepath.Dir(p); !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			if d == "/" {
				break
			}
		}
	}
	var fs []string
	for d := range seen {
		q, err := quote(d)
		if err != nil {
			return err
		}
		fs = append(fs, "(literal "+q+")")
	}
	slices.Sort(fs)
	writeRule(b, rule{"The folders above every place shown: looked at, never listed.", "allow",
		[]string{"file-read-metadata"}, fs})
	return nil
}
