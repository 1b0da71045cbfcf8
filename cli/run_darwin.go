package cli

// becomeSubreaper does nothing on macOS, which has no child subreaper: a
// process the command detaches is reparented to launchd and is not kept
// below `pathgrant run` (daemon.MacDetachedGap, which doctor reports).
// pathgrant run still reaps its own child, the command.
func becomeSubreaper() error { return nil }
