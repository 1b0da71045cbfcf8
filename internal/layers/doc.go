// Package layers holds pathgrant's layer tests: the table "Layers and what
// each may import" in docs/ARCHITECTURE.md is the rule, and the tests hold
// the import graph that `go list` reports to it, so the map of the code
// cannot drift from the code. They also require a package comment on every
// package. The package has no code outside its tests.
package layers
