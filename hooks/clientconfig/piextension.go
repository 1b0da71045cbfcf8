package clientconfig

import (
	_ "embed"
	"encoding/json"
	"strings"
)

// Pi has no hook processes: install-hooks writes this TypeScript
// extension, which sends each tool call to `pathgrant-hook pi` (the
// protocol is in hooks/pi.go). It is install-time text, kept out of the
// hook binary.

// PiExtension is the Pi extension, with the placeholder PiHookPlaceholder
// standing for the pathgrant-hook command; PiExtensionFor fills it in.
//
//go:embed pi/pathgrant.ts
var PiExtension string

// PiHookPlaceholder is replaced by the hook command in PiExtension.
const PiHookPlaceholder = "__PATHGRANT_HOOK_ARGV__"

// PiExtensionMarker is the first line of the extension; install-hooks
// recognises its own file by it.
const PiExtensionMarker = "// pathgrant: Pi extension"

// PiExtensionFor returns the extension that runs the hook command argv
// (`/path/pathgrant-hook pi`, with any further arguments such as --socket).
func PiExtensionFor(argv []string) string { return withHookArgv(PiExtension, argv) }

// withHookArgv is text (a Pi extension or OpenCode plugin) with its
// PiHookPlaceholder replaced by argv as a JSON array.
func withHookArgv(text string, argv []string) string {
	data, err := json.Marshal(argv)
	if err != nil { // a []string always marshals
		panic(err)
	}
	return strings.Replace(text, PiHookPlaceholder, string(data), 1)
}
