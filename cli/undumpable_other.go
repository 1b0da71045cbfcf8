//go:build !linux

package cli

// forbidTracing has no equivalent here: macOS refuses to attach to a
// process without the debugger entitlement or root.
func forbidTracing() error { return nil }
