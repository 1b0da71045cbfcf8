// Package launch is what the daemon and the front end of a hook's
// rewritten shell command (package frontend) say to each other: the
// command's exec capability has the daemon prepare its sandbox (the
// bubblewrap mount view, the Landlock rules and the inner step to run),
// and a report ticket has it explain the paths a failed command was
// refused. It also holds the pieces of that exchange both sides use: the
// command's text and hash, the confined environment, the stderr tee and
// the refusal scanner.
//
// The daemon prepares because it is already running: the view and the
// rules cost a fresh process milliseconds of start-up and cold caches, on
// the path of every agent shell command. So the front end links only the
// standard library's small parts and x/sys (no net, no net/http, no
// regexp, no os/exec): it talks HTTP/1.0 over the Unix socket itself.
package launch
