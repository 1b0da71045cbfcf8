package wire

// Level is the confinement agents' shell commands get.
type Level string

// The confinement levels, strongest first.
const (
	// LevelFull is a bubblewrap mount view with Landlock inside it.
	LevelFull Level = "bwrap+landlock"
	// LevelLandlock is Landlock alone, on the real file system.
	LevelLandlock Level = "landlock"
	// LevelSeatbelt is macOS's Seatbelt: sandbox-exec runs the command
	// under a profile made from the same view (Prepared.Seatbelt).
	LevelSeatbelt Level = "seatbelt"
	// LevelOff: the device policy turns confinement off.
	LevelOff Level = "off"
	// LevelNone: the machine cannot confine.
	LevelNone Level = "none"
)

// Unconfined reports whether level leaves agent commands unconfined; an
// unknown or empty level does.
func (l Level) Unconfined() bool { return l != LevelFull && l != LevelLandlock && l != LevelSeatbelt }
