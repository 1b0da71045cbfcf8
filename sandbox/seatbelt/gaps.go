package seatbelt

// What a command confined by Seatbelt can still do, or cannot be offered,
// that the Linux view and Landlock stop or offer: pathgrant doctor shows
// them (sandbox.Confinement.Gaps).
const (
	GapProcesses = "no PID namespace: a confined command sees the user's other processes (ps), and one it detaches outlives it (under the same profile) instead of ending with it"
	GapHold      = "no held opens: a read that needs the person fails at once and is explained after the command"
	GapTmp       = "no private /tmp: /tmp can be neither read nor written; TMPDIR is the session's own folder"
	GapIPC       = "POSIX semaphores and shared memory are shared by name with the user's other processes"
	GapSpelling  = "denies fold ASCII letter case only: another Unicode spelling of a hidden or protected name that the volume takes as the same name is not refused"
)

// Gaps are the gaps above (the network, which Seatbelt leaves open, is
// the caller's to add: sandbox.GapNetwork).
func Gaps() []string { return []string{GapProcesses, GapHold, GapTmp, GapIPC, GapSpelling} }
