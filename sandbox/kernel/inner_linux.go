package kernel

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"pathgrant/sandbox/rules"
)

// JobFile is the job in a close-on-exec memory file, to be handed to the
// inner step at a descriptor number of the caller's choosing
// (os.ProcAttr.Files): a process that starts other programs concurrently
// (the daemon) never lets them inherit it.
func JobFile(data []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("pathgrant-exec-job", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("sandbox job: memfd: %w", err)
	}
	if _, err := unix.Pwrite(fd, data, 0); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("sandbox job: write: %w", err)
	}
	return os.NewFile(uintptr(fd), "pathgrant-exec-job"), nil
}

// ReadJob reads and closes the job at fd (the inner step's side), so the
// command does not inherit it.
func ReadJob(fd int) (rules.Job, error) {
	f := os.NewFile(uintptr(fd), "job")
	if f == nil {
		return rules.Job{}, fmt.Errorf("sandbox job: bad descriptor %d", fd)
	}
	defer f.Close()
	data, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<26))
	if err != nil {
		return rules.Job{}, fmt.Errorf("sandbox job: read: %w", err)
	}
	var job rules.Job
	if err := json.Unmarshal(data, &job); err != nil {
		return rules.Job{}, fmt.Errorf("sandbox job: %w", err)
	}
	return job, nil
}
