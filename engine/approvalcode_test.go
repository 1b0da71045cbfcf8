package engine

import (
	"pathgrant/grants"
	"pathgrant/guard"
	"strings"
	"testing"
)

// TestApprovalCodeAlphabet: codes are codeLen symbols of the unambiguous
// alphabet, and differ from one request to the next.
func TestApprovalCodeAlphabet(t *testing.T) {
	seen := map[string]bool{}
	for range 2000 {
		c := newApprovalCode()
		if len(c) != codeLen || strings.ContainsAny(c, "0O1Il") || strings.Trim(c, codeAlphabet) != "" {
			t.Fatalf("code %q", c)
		}
		seen[c] = true
	}
	if len(seen) < 1990 {
		t.Fatalf("%d distinct codes of 2000", len(seen))
	}
}

// TestCeiling: a code allows what the prompt offered and nothing wider.
func TestCeiling(t *testing.T) {
	file := guard.Scope{Op: guard.OpRead, Path: "/d/x.csv", Kind: guard.KindFile}
	folder := guard.Scope{Op: guard.OpRead, Path: "/d", Kind: guard.KindFolder}
	yes := func(guard.Op, string, bool) bool { return true }
	no := func(guard.Op, string, bool) bool { return false }
	tests := []struct {
		name  string
		sug   guard.Scope
		offer func(guard.Op, string, bool) bool
		scope grants.Scope
		kind  guard.GrantKind
		want  bool
	}{
		{"once file", file, yes, grants.ScopeOnce, "", true},
		{"device folder offered", file, yes, grants.ScopeDevice, guard.KindFolder, true},
		{"folder not grantable", file, no, grants.ScopeOnce, guard.KindFolder, false},
		{"file itself when the folder is not", file, no, grants.ScopeDevice, guard.KindFile, true},
		{"suggested folder", folder, no, grants.ScopeSession, guard.KindFolder, true},
		{"file of a folder", folder, yes, grants.ScopeOnce, guard.KindFile, false},
		{"unknown scope", file, yes, grants.Scope("forever"), "", false},
		{"device for a write", guard.Scope{Op: guard.OpWrite, Path: "/d/x", Kind: guard.KindFile}, yes, grants.ScopeDevice, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ceilingFor(tt.sug, tt.offer).allows(tt.scope, tt.kind, tt.sug); got != tt.want {
				t.Fatalf("allows = %v, want %v", got, tt.want)
			}
		})
	}
}
