package seatbelt

import (
	"fmt"
	"slices"
)

// place is one step's path in the forms its rules take: as spelt (for
// allows) and folded (for denies), for files and for Unix sockets.
type place struct {
	quoted      string // "P"
	here, below string // the folded expression bodies: P itself, below P
}

func newPlace(path string) (place, error) {
	q, err := quote(path)
	if err != nil {
		return place{}, err
	}
	rx, err := Folded(path)
	if err != nil {
		return place{}, err
	}
	below := rx + "/"
	if path == "/" {
		below = "/"
	}
	return place{quoted: q, here: rx, below: below}, nil
}

func (p place) subpath() string { return "(subpath " + p.quoted + ")" }
func (p place) literal() string { return "(literal " + p.quoted + ")" }

// folded are the filters that match the place and all below it, in every
// letter case.
func (p place) folded() []string {
	return []string{`(regex #"^` + p.here + `$")`, `(regex #"^` + p.below + `")`}
}

// foldedSockets are folded for a Unix socket's address (connect, bind).
func (p place) foldedSockets(end string) []string {
	return []string{"(" + end + ` unix-socket (path-regex #"^` + p.here + `$"))`,
		"(" + end + ` unix-socket (path-regex #"^` + p.below + `"))`}
}

// socketsBelow matches a Unix socket's address at or below the place.
func (p place) socketsBelow(end string) string {
	return "(" + end + " unix-socket " + p.subpath() + ")"
}

// rules are the rules that give the step's place, and all below it, what
// its kind says, whatever the steps before gave there.
func (s Step) rules() ([]rule, error) {
	p, err := newPlace(s.Path)
	if err != nil {
		return nil, fmt.Errorf("%s step: %w", s.Why, err)
	}
	noWrite := []rule{
		{"", "deny", writeOps, p.folded()},
		{"", "deny", []string{"network-bind"}, p.foldedSockets("local")},
	}
	connect := rule{"", "allow", []string{"network-outbound"}, []string{p.socketsBelow("remote")}}
	switch s.Kind {
	case Hidden:
		return []rule{
			{"", "deny", slices.Concat(readOps, execOps, writeOps), p.folded()},
			{"", "deny", []string{"network-outbound"}, p.foldedSockets("remote")},
			{"", "deny", []string{"network-bind"}, p.foldedSockets("local")},
		}, nil
	case Names:
		return append([]rule{{"", "allow", []string{"file-read-metadata"}, []string{p.subpath()}}}, noWrite...), nil
	case Read:
		return append([]rule{{"", "allow", readOps, []string{p.subpath()}}, connect}, noWrite...), nil
	case ReadExec:
		return append([]rule{{"", "allow", slices.Concat(readOps, execOps), []string{p.subpath()}}, connect}, noWrite...), nil
	case ReadWrite:
		return []rule{
			{"", "allow", slices.Concat(readOps, execOps, writeOps), []string{p.subpath()}},
			connect,
			{"", "allow", []string{"network-bind", "network-inbound"}, []string{p.socketsBelow("local")}},
			{"", "deny", []string{"file-write-unlink"}, p.folded()[:1]},
		}, nil
	case NoWrite:
		return noWrite, nil
	case Socket:
		return []rule{
			{"", "allow", []string{"file-read-metadata"}, []string{p.literal()}},
			{"", "allow", []string{"network-outbound"}, []string{"(remote unix-socket (path-literal " + p.quoted + "))"}},
		}, nil
	}
	return nil, fmt.Errorf("%s step at %s: unknown kind %v", s.Why, s.Path, s.Kind)
}
