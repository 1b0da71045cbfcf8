// Package engine is what the pathgrant daemon decides, apart from any
// transport: the sessions and the one resolver that says which session a
// request acts for (resolve.go, read top to bottom), checks through the
// guard, approval requests and their one-time codes, exec capabilities,
// the tools it runs for a session through the one confinement door, the
// session lifecycle, the audit and the events it publishes. It knows
// nothing of HTTP: package ipc serves it on the socket and the app calls
// it in process; refusals are Errors with a Code each transport maps.
package engine
