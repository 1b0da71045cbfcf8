package hooks

import (
	"reflect"
	"testing"
)

// pathCase is one row of a client's path tests: a hook input and the
// accesses it must be checked as (each search's shown input left out).
type pathCase struct {
	name, input string
	want        []Access
}

// runPathCases checks each case's input with client's adapter.
func runPathCases(t *testing.T, client string, cases []pathCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkPaths(t, client, tc.input, tc.want) })
	}
}

// checkPaths parses input with client's adapter and compares the
// accesses with want.
func checkPaths(t *testing.T, client, input string, want []Access) {
	t.Helper()
	c, err := adapterOf(t, client).parse([]byte(input))
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.Accesses {
		c.Accesses[i].Input = searchInput{}
	}
	if !reflect.DeepEqual(c.Accesses, want) {
		t.Errorf("accesses %+q, want %+q", c.Accesses, want)
	}
}
