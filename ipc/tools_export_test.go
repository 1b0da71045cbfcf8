package ipc

import "pathgrant/engine"

// PlayAgent makes cfg read every peer as the same agent process (a hook
// or a bridge under the made-up agent "claude", pid 4000, which never
// exits), so tests outside package ipc can use the agent-process source.
func PlayAgent(cfg *Config) {
	cfg.Lineage = func(int32) ([]engine.LineageEntry, error) { return agentLineage, nil }
	cfg.ProcAlive = func(engine.Proc) bool { return true }
}
