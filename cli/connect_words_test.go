package cli

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestConnectWords: a connection's request, grant and remembered denial
// read "connect to HOST:PORT" where the CLI prints them, and a
// connection's grant is of no file kind; a file's still read "read PATH".
func TestConnectWords(t *testing.T) {
	const dest = "registry.npmjs.org:443"
	now := time.Now()
	var pending, denials bytes.Buffer
	if err := writeRequestsTable(&pending, []wire.Request{{ID: "r1", Session: "0123456789abcdef", Op: guard.OpConnect,
		Path: dest, Count: 1, Created: now}}, now); err != nil {
		t.Fatal(err)
	}
	if err := writeDenialsTable(&denials, []wire.Denial{{ID: "d1", Session: "0123456789abcdef", Agent: "claude",
		Op: guard.OpConnect, Path: dest, Hits: 1, Created: now}}, now); err != nil {
		t.Fatal(err)
	}
	store := connectGrantStore(t, dest)
	tests := []struct {
		name, got string
		want      *regexp.Regexp
	}{
		{"pending", pending.String(), regexp.MustCompile(`\br1\s+01234567\s+connect to\s+registry\.npmjs\.org:443\s+1\s`)},
		{"grants list", grantsCmd("list", "--store", store).ok(t).stdout,
			regexp.MustCompile(`\ssession\s+connect to\s+-\s+live\s+0\s+\S+\s+s1\s+registry\.npmjs\.org:443\n`)},
		{"denials", denials.String(), regexp.MustCompile(`\bclaude\s+connect to\s+registry\.npmjs\.org:443\s+1\s`)},
		{"the op as approve's question and answer print it", "Allow " + opShown(guard.OpConnect) + " " + dest, regexp.MustCompile(`^Allow connect to registry\.npmjs\.org:443$`)},
		{"a file's op as it was", opShown(guard.OpRead) + " /x", regexp.MustCompile(`^read /x$`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.want.MatchString(tt.got) {
				t.Errorf("output\n%s\ndoes not match %s", tt.got, tt.want)
			}
		})
	}
}

// connectGrantStore is a store holding one session's grant of a
// connection to dest; its path.
func connectGrantStore(t *testing.T, dest string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "state", "pathgrant.db")
	s, err := grants.Open(path, grants.Options{NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.StartSession(grants.Session{ID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(grants.NewGrant{Scope: grants.ScopeSession, Op: guard.OpConnect, Path: dest, Kind: guard.KindFile, Session: "s1"}); err != nil {
		t.Fatal(err)
	}
	return path
}
