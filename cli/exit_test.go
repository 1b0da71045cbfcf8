package cli

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestExitCode pins the one mapping from errors to exit statuses.
func TestExitCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"none", nil, 0},
		{"usage", usagef("bad"), 2},
		{"wrapped usage", fmt.Errorf("x: %w", usagef("bad")), 2},
		{"check usage", fmt.Errorf("--policy is required; %w", errUsage), 2},
		{"failure", errors.New("no daemon"), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := exitCode(tc.err); got != tc.want {
				t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
			}
		})
	}
}

// TestParseFlags: flags may come anywhere among the arguments; `--` ends
// them; a bad flag is a usage error.
func TestParseFlags(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		pos       []string
		json      bool
		usage     bool
		wantError bool
	}{
		{name: "flags first", args: []string{"--json", "a", "b"}, pos: []string{"a", "b"}, json: true},
		{name: "flags between", args: []string{"a", "--json", "b"}, pos: []string{"a", "b"}, json: true},
		{name: "flags last", args: []string{"a", "b", "--json"}, pos: []string{"a", "b"}, json: true},
		{name: "double dash ends flags", args: []string{"a", "--", "--json"}, pos: []string{"a", "--json"}},
		{name: "unknown flag", args: []string{"a", "--bogus"}, wantError: true, usage: true},
		{name: "help", args: []string{"-h"}, wantError: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFlags("t")
			asJSON := fs.Bool("json", false, "")
			pos, err := parseFlags(fs, tc.args)
			switch {
			case tc.wantError && err == nil, !tc.wantError && err != nil:
				t.Fatalf("err = %v, want error %v", err, tc.wantError)
			case tc.wantError:
				if got := exitCode(err) == exitUsage; got != tc.usage || !tc.usage && !errors.Is(err, flag.ErrHelp) {
					t.Errorf("err = %v (usage %v), want usage %v", err, got, tc.usage)
				}
				return
			}
			if !slices.Equal(pos, tc.pos) || *asJSON != tc.json {
				t.Errorf("positional %q json %v, want %q %v", pos, *asJSON, tc.pos, tc.json)
			}
		})
	}
}

// TestHelpColumns: every summary in `pathgrant help` starts in the same
// column, after the longest command name.
func TestHelpColumns(t *testing.T) {
	code, out, _ := runCLI("help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	cmds := commands(strings.NewReader(""))
	col := -1
	for line := range strings.Lines(out) {
		name, _, ok := strings.Cut(strings.TrimSpace(line), " ")
		c, known := cmds[name]
		if !ok || !known || !strings.HasPrefix(line, "  ") {
			continue
		}
		at := strings.Index(line, c.summary)
		if col == -1 {
			col = at
		}
		if at != col || at < 2+len(name)+2 {
			t.Errorf("%q: summary at column %d, want %d", line, at, col)
		}
		delete(cmds, name)
	}
	if len(cmds) > 0 {
		t.Errorf("help does not list %v", cmds)
	}
}
