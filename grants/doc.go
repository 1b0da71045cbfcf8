// Package grants is the durable store of what the user has approved.
//
// It keeps grants, sessions and the audit log in one bbolt file that never
// leaves the device: the guard asks it (through a per-session View) whether a
// grant lets an operation reach a canonical path, the daemon records each use,
// and every state change leaves one audit record saying why.
//
// A grant stops serving when it expires, is revoked, is consumed (scope once),
// its session ends, or its path is replaced after approval. Replacement is
// noticed by fsnotify and, independently, by comparing the path's device and
// inode at every lookup and use, so nothing depends on the watcher alone.
package grants
