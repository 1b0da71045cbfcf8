package launch

// The descriptors a front end hands the inner step, after stdin, stdout
// and stderr: the job (a memory file) and, for a command whose opens are
// held (wire.Prepared.Hold), the Unix socket the inner step sends its
// seccomp listener on.
const (
	JobFD  = 3
	HoldFD = 4
)
