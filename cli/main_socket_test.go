package cli

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGlobalSocket: `pathgrant --socket X CMD` is `pathgrant CMD --socket
// X`, and `pathgrant --socket X` is the app on X.
func TestGlobalSocket(t *testing.T) {
	tests := []struct {
		args    []string
		want    []string
		wantErr string
	}{
		{[]string{"--socket", "/s", "pending"}, []string{"pending", "--socket", "/s"}, ""},
		{[]string{"--socket=/s", "approve", "abc123", "--scope", "once"},
			[]string{"approve", "--socket", "/s", "abc123", "--scope", "once"}, ""},
		{[]string{"-socket", "/s"}, []string{"app", "--socket", "/s"}, ""},
		{[]string{"--socket", "/s", "settings"}, []string{"settings", "--socket", "/s"}, ""},
		{[]string{"pending", "--socket", "/s"}, []string{"pending", "--socket", "/s"}, ""},
		{nil, []string{"app"}, ""},
		{[]string{"--socket"}, nil, "needs an argument"},
		{[]string{"--socket="}, nil, "empty path"},
		{[]string{"--socket", "/s", "check", "read", "/x"}, nil, `does not apply to "check"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got, err := globalArgs(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("globalArgs = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestGlobalSocketReachesTheCommand: the global flag is the socket the
// command dials, not "unknown command".
func TestGlobalSocketReachesTheCommand(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "elsewhere.sock")
	var out, errOut bytes.Buffer
	code := Main([]string{"--socket", sock, "pending"}, strings.NewReader(""), &out, &errOut)
	if code != exitFail || !strings.Contains(errOut.String(), sock) || strings.Contains(errOut.String(), "unknown command") {
		t.Fatalf("exit %d, stderr %q: want a failure to reach %s", code, errOut.String(), sock)
	}
	errOut.Reset()
	if code := Main([]string{"--socket", sock, "check"}, strings.NewReader(""), &out, &errOut); code != exitUsage {
		t.Fatalf("check with --socket: exit %d, stderr %q", code, errOut.String())
	}
}
