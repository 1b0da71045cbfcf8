package ipc

// PlayAgent makes cfg read every peer as the same agent process (a hook
// or a bridge under the made-up agent "claude", pid 4000, which never
// exits), so tests outside package ipc can use the agent-process source.
func PlayAgent(cfg *Config) {
	cfg.Lineage = func(int32) ([]lineageEntry, error) { return agentLineage, nil }
	cfg.ProcAlive = func(Proc) bool { return true }
}
