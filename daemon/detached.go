package daemon

// MacDetachedGap says what macOS does not give the daemon: there is no child
// subreaper (Linux's PR_SET_CHILD_SUBREAPER) and no other way to adopt a
// descendant. A process a tool call detaches (`setsid`, a double fork)
// is reparented to launchd, so it is no longer below the daemon, and the
// socket no longer sees it as one of the daemon's tools' processes
// (engine's belowDaemon); the same holds below `pathgrant run`. Its
// lineage still fails closed where it cannot be read. Orphans are reaped
// by launchd, so the daemon reaps only its own children, through
// os/exec's Wait. doctor cites this sentence.
const MacDetachedGap = "macOS has no child subreaper: a process that an agent's command detaches (setsid, a double fork) is reparented to launchd, so it is no longer seen below the daemon or below 'pathgrant run' as the agent's"
