package engine

import (
	"pathgrant/guard"
	"pathgrant/wire"
)

// confinedView is what the confinement view of req's command opens beyond
// the session's roots (the device policy's caches written, toolchains run,
// read-only files read) when that command will run confined: the caller
// rewrites it to run under `pathgrant exec` (ExecCommand) and this device
// confines commands. The check then does not refuse what the kernel will
// allow (mkdir -p ~/.cache/x); nil for anything else, which is judged as
// before.
func (s *Engine) confinedView(req wire.CheckRequest) *guard.View {
	if req.Command == "" || req.ExecCommand == "" || s.confinementLevel().Unconfined() {
		return nil
	}
	file := s.deviceFile()
	return &guard.View{Writable: file.Caches, Runnable: file.Toolchains, Readable: file.ReadOnlyFiles}
}
