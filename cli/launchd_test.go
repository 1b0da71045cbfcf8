package cli

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// plainPlist is the agent for a plain binary path and log, exactly.
const plainPlist = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>dev.pathgrant.daemon</string>
	<key>ProgramArguments</key>
	<array>
		<string>/usr/local/bin/pathgrant</string>
		<string>serve</string>
		<string>--headless</string>
	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ProcessType</key>
	<string>Interactive</string>
	<key>StandardErrorPath</key>
	<string>/Users/me/Library/Application Support/pathgrant/headless.log</string>
</dict>
</plist>
`

const (
	plainExe = "/usr/local/bin/pathgrant"
	plainLog = "/Users/me/Library/Application Support/pathgrant/headless.log"
)

// TestLaunchAgentPlist pins the agent's plist for each kind of path: the
// exact text (the plain document with the binary's and the log's lines
// as escaped), and that an XML reader gets the paths back unchanged.
func TestLaunchAgentPlist(t *testing.T) {
	tests := []struct {
		name             string
		exe, log         string
		wantExe, wantLog string // the escaped text inside <string>
	}{
		{name: "plain", exe: plainExe, log: plainLog, wantExe: plainExe, wantLog: plainLog},
		{name: "spaces, ampersand, angle brackets",
			exe: "/Applications/Tools & <Co>/pathgrant", log: "/Users/me/A&B <x>/headless.log",
			wantExe: "/Applications/Tools &amp; &lt;Co&gt;/pathgrant", wantLog: "/Users/me/A&amp;B &lt;x&gt;/headless.log"},
		{name: "quotes", exe: `/opt/"q" 'a'/pathgrant`, log: plainLog,
			wantExe: "/opt/&#34;q&#34; &#39;a&#39;/pathgrant", wantLog: plainLog},
		{name: "unicode home",
			exe: "/Users/zoë/bin/pathgrant", log: "/Users/zoë/Library/Application Support/pathgrant/headless.log",
			wantExe: "/Users/zoë/bin/pathgrant", wantLog: "/Users/zoë/Library/Application Support/pathgrant/headless.log"},
		{name: "newline and tab kept", exe: "/tmp/a\nb\tc/pathgrant", log: plainLog,
			wantExe: "/tmp/a&#xA;b&#x9;c/pathgrant", wantLog: plainLog},
		{name: "a real replacement character", exe: "/tmp/\uFFFD/pathgrant", log: plainLog,
			wantExe: "/tmp/\uFFFD/pathgrant", wantLog: plainLog},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := daemonAgent(tc.exe, tc.log, "").plist()
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(plainPlist, "<string>"+plainExe+"</string>", "<string>"+tc.wantExe+"</string>", 1)
			want = strings.Replace(want, "<string>"+plainLog+"</string>", "<string>"+tc.wantLog+"</string>", 1)
			if string(got) != want {
				t.Errorf("plist:\n%s\nwant:\n%s", got, want)
			}
			wantStrings := []string{agentLabel, tc.exe, "serve", "--headless", "Interactive", tc.log}
			if strs := plistStrings(t, got); !slices.Equal(strs, wantStrings) {
				t.Errorf("an XML reader gets %q, want %q", strs, wantStrings)
			}
		})
	}
}

// TestLaunchAgentPlistRefuses: a path XML cannot hold is an error, never
// a plist naming another file.
func TestLaunchAgentPlistRefuses(t *testing.T) {
	tests := []struct {
		name, exe, log string
	}{
		{name: "control character in the binary", exe: "/tmp/a\x01b/pathgrant", log: plainLog},
		{name: "invalid UTF-8 in the binary", exe: "/tmp/\xff/pathgrant", log: plainLog},
		{name: "NUL in the log", exe: plainExe, log: "/Users/me/\x00/headless.log"},
		{name: "invalid UTF-8 in the log", exe: plainExe, log: "/Users/\xc3/headless.log"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := daemonAgent(tc.exe, tc.log, "").plist(); err == nil {
				t.Errorf("plist = %s, want an error", got)
			}
		})
	}
}

// plistStrings is every <string> element's text in doc, as an XML reader
// decodes it.
func plistStrings(t *testing.T, doc []byte) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	var out []string
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "string" {
			var s string
			if err := d.DecodeElement(&s, &se); err != nil {
				t.Fatalf("decode <string>: %v", err)
			}
			out = append(out, s)
		}
	}
}
