//go:build !linux

package guard

// resolveKernel has no fast path outside Linux; the component walk answers.
func resolveKernel(string, bool) (string, bool) { return "", false }
