// Package hooks translates each agent client's hook protocol (Claude Code,
// Codex CLI, Gemini CLI, Cursor, Pi) into pathgrant check requests, asks
// the daemon over its Unix socket, and renders the decision back in that
// client's exact output format. It also holds the hook's half of the
// client table (clients.go): for each client its adapter and how a call is
// answered. The install-time half (where each client's settings live, the
// editors install-hooks and install-mcp run, the files a session must
// never write) is hooks/clientconfig, which this package never imports.
//
// It is what the pathgrant-hook binary runs, so it stays small and fast to
// start: it imports neither ipc (whose import graph holds the bbolt store)
// nor guard, nor the net packages. It speaks the daemon's JSON API with its
// own wire types (wire.go, kept in step with ipc by a test) and a minimal
// HTTP/1.1 client over a plain Unix socket descriptor (client.go).
//
// Every failure fails closed in the client's own terms: a daemon that is
// down or too slow, a session conflict, a tool pathgrant cannot map (which
// the daemon is told of, and records), or an unknown event all become that
// client's deny; input that cannot be parsed at all becomes exit status 2
// with the reason on stderr, which every supported client treats as a
// block. Nothing is ever an allow unless the daemon said allow. A tool
// known to touch no local file (nofiles.go), and what the device policy
// leaves to the client (unknown_tools, unmapped_tools = "ask-client"),
// get no decision: the client's own permission flow decides.
package hooks
