// Package ipc is the pathgrant daemon's local API: HTTP/1.1 over a Unix
// socket that only the user's own processes may use. It resolves which
// session a request belongs to (once, in one place), asks the guard, turns
// eligible denials into approval requests, and publishes what happens as
// server-sent events. It never imports a UI toolkit; prompt/ implements the
// Approver interface defined here.
package ipc
