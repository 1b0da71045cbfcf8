package launch

// The descriptors a front end hands the inner step, after stdin, stdout
// and stderr: the job (a memory file); for a command whose opens are
// held (wire.Prepared.Hold), the Unix socket the inner step sends its
// seccomp listener on; for a command in a network namespace of its own
// (wire.Prepared.Net), the connection to the daemon's proxy that the
// inner step hands its loopback listener out on.
const (
	JobFD  = 3
	HoldFD = 4
	NetFD  = 5
)
