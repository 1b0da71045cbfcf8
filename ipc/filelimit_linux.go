package ipc

// fileLimitCeiling is the hard limit: Linux lets the soft limit reach it.
func fileLimitCeiling(hard uint64) uint64 { return hard }
