// Package testhost is a network host for tests of tools that go out to
// the network: HTTP and HTTPS (a hello page, bulk bytes, git's smart HTTP,
// an npm registry, a PyPI simple index, a Go module proxy) and ssh (git
// upload-pack) on an address inside a network namespace the test makes,
// reachable from the machine's namespace only over a veth pair. Nothing
// leaves the machine, and a confined command in a namespace of its own
// reaches the host only through whatever path the test gives it (the
// daemon's proxy). It needs root; Start skips the test without it.
package testhost
