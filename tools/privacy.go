package tools

import (
	"os"
	"runtime"

	"pathgrant/tcc"
)

// osFailure is the message of an allowed read that the OS failed with
// err: on macOS an EPERM under a folder its privacy controls guard is
// their refusal, not pathgrant's, and says so with the setting that fixes
// it (tcc.Explain); any other failure keeps msg.
func (s *Session) osFailure(path string, err error, msg string) string {
	return osFailureOn(runtime.GOOS, s.Home, path, err, msg, daemonApp)
}

// osFailureOn is osFailure for the OS goos; app names who macOS asks
// about, called only for a privacy refusal.
func osFailureOn(goos, home, path string, err error, msg string, app func() string) string {
	a := tcc.Access{GOOS: goos, Home: home, Path: path, Err: err, Allowed: true}
	if r, f := tcc.Classify(a); r == tcc.Privacy {
		return tcc.Refusal(path, f, app())
	}
	return msg
}

// daemonApp names the app macOS privacy controls ask about for the file
// tools: they run in the daemon, so it is the daemon's terminal or, when
// launchd started it, its own binary.
func daemonApp() string {
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	}
	return tcc.App(os.Getenv, exe)
}
