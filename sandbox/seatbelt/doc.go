// Package seatbelt writes the Seatbelt profile (SBPL, the language of
// macOS's sandbox-exec) that an agent's command runs under on macOS.
//
// Its input is the view bubblewrap mounts on Linux, as steps in the
// view's order. Seatbelt lets the last rule that matches an operation
// decide it, as bubblewrap lets a later mount cover an earlier one, so
// each step becomes the rules that give its place, and everything below
// it, what the mount gives there. Before the steps come the macOS
// locations every command needs (system.go); everything else is denied
// by (deny default).
//
// Allows name a place as spelt (literal, subpath); denies name it in
// every ASCII letter case (a regular expression), since macOS volumes
// are case-insensitive by default and .GIT/CONFIG is .git/config there.
// The package is pure: it reads nothing, so its output is tested on
// Linux.
package seatbelt
