// Command pathgrant-hook is the hook agent clients run before a tool call:
// `pathgrant-hook claude|cline|codex|copilot|cursor|droid|gemini|pi|qwen` reads the client's hook
// JSON on stdin, asks the pathgrant daemon over its socket, and answers in
// that client's format. It is cgo-free and links neither the UI nor the
// store, so it starts in about a millisecond; every failure is a deny.
package main

import (
	"os"

	"pathgrant/hooks"
)

func main() {
	os.Exit(hooks.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
