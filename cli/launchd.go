package cli

import (
	"encoding/xml"
	"fmt"
	"strings"
	"unicode/utf8"
)

// agentLabel names pathgrant's launchd user agent: the plist's file stem
// and the service in `launchctl print gui/UID/dev.pathgrant.daemon`. It
// follows the app's identifier, dev.pathgrant.app.
const agentLabel = "dev.pathgrant.daemon"

// launchAgent is what pathgrant's launchd user agent says: which program
// runs and where its stderr goes. Everything else in the plist is fixed.
type launchAgent struct {
	Label   string
	Program []string // ProgramArguments: the absolute binary, then its arguments
	Stderr  string   // StandardErrorPath: the headless daemon's log
	// TmpDir, when set, is the daemon's TMPDIR (EnvironmentVariables):
	// the socket's folder follows it (appdirs.Socket), and launchd does
	// not promise an agent the TMPDIR a login shell has, so the one the
	// installing shell's clients will look in is written down.
	TmpDir string
}

// daemonAgent is the agent that runs exe as the headless daemon on the
// default socket and store, logging to logPath, with tmpDir as its
// TMPDIR ("": launchd's).
func daemonAgent(exe, logPath, tmpDir string) launchAgent {
	return launchAgent{Label: agentLabel, Program: []string{exe, "serve", "--headless"}, Stderr: logPath, TmpDir: tmpDir}
}

// plist renders the agent as a property list. launchd starts it at login
// (RunAtLoad) and again when it crashes, but not after a clean exit, so
// stopping the daemon on purpose (SIGTERM, which it answers with exit 0)
// leaves it stopped. Interactive gives it the
// scheduling of an app the person uses: it answers the agents' hooks,
// which wait on it. Values are XML-escaped; one that XML cannot hold at
// all (a control character, invalid UTF-8) is an error, never a silently
// changed path.
func (a launchAgent) plist() ([]byte, error) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
`)
	if err := plistString(&b, 1, "Label", a.Label); err != nil {
		return nil, err
	}
	b.WriteString("\t<key>ProgramArguments</key>\n\t<array>\n")
	for _, arg := range a.Program {
		if err := plistValue(&b, 2, arg); err != nil {
			return nil, fmt.Errorf("ProgramArguments: %w", err)
		}
	}
	b.WriteString(`	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ProcessType</key>
	<string>Interactive</string>
`)
	if err := plistString(&b, 1, "StandardErrorPath", a.Stderr); err != nil {
		return nil, err
	}
	if a.TmpDir != "" {
		b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n")
		if err := plistString(&b, 2, "TMPDIR", a.TmpDir); err != nil {
			return nil, fmt.Errorf("EnvironmentVariables: %w", err)
		}
		b.WriteString("\t</dict>\n")
	}
	b.WriteString("</dict>\n</plist>\n")
	return []byte(b.String()), nil
}

// plistString writes one key and its string value at depth tabs.
func plistString(b *strings.Builder, depth int, key, value string) error {
	fmt.Fprintf(b, "%s<key>%s</key>\n", strings.Repeat("\t", depth), key)
	if err := plistValue(b, depth, value); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// plistValue writes one <string> element, its text escaped.
func plistValue(b *strings.Builder, depth int, value string) error {
	if err := xmlText(value); err != nil {
		return err
	}
	b.WriteString(strings.Repeat("\t", depth) + "<string>")
	if err := xml.EscapeText(b, []byte(value)); err != nil {
		return fmt.Errorf("escape %q: %w", value, err)
	}
	b.WriteString("</string>\n")
	return nil
}

// xmlText refuses what encoding/xml would replace with U+FFFD rather than
// escape: invalid UTF-8 and the characters XML 1.0 excludes (controls
// other than tab, newline and carriage return, surrogates, U+FFFE and
// U+FFFF). A path holding one cannot be written into a plist.
func xmlText(s string) error {
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return fmt.Errorf("%q is not valid UTF-8", s)
		}
		if !xmlChar(r) {
			return fmt.Errorf("%q holds %U, which XML cannot represent", s, r)
		}
	}
	return nil
}

// xmlChar is XML 1.0's Char production.
func xmlChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' ||
		r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}
