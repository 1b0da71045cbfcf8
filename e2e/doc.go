// Package e2e holds pathgrant's end-to-end tests: the real binary, a real
// socket, real windows under Xvfb and a real notification server.
package e2e
