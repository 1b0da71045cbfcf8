package cli

import (
	"testing"
	"time"
)

func TestParseMCPArgs(t *testing.T) {
	env := map[string]string{"PATHGRANT_SESSION": "s-env", "PATHGRANT_TOKEN": "tok", "PATHGRANT_SOCKET": "/run/pg.sock"}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    mcpArgs
		wantErr bool
	}{
		{"under pathgrant run", nil, env, mcpArgs{session: "s-env", token: "tok", socket: "/run/pg.sock", wait: 50 * time.Second}, false},
		{"hook-only client: the agent process's session", nil, map[string]string{"PATHGRANT_SOCKET": "/s"}, mcpArgs{socket: "/s", wait: 50 * time.Second}, false},
		{"flags", []string{"--session", "s-flag", "--socket", "/x", "--wait", "0s"}, env, mcpArgs{session: "s-flag", token: "tok", socket: "/x"}, false},
		{"negative wait", []string{"--wait", "-1s"}, env, mcpArgs{}, true},
		{"stray argument", []string{"extra"}, env, mcpArgs{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMCPArgs(tt.args, func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
