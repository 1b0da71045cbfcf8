// Package launch holds what both sides of a confined command use, the
// daemon that prepares its sandbox and the front end that runs it (package
// frontend): the command's text and its shell quoting, the confined
// environment, the terminals to reopen inside the view, and the stderr
// scanner that picks out the paths a failed command was refused. What the
// two sides send each other over the socket is package wire's.
//
// The front end links it, so it stays as lean as the front end must be:
// the standard library's small parts only (no net, no regexp, no
// os/exec).
package launch
