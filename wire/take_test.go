package wire

import (
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTake: a 2xx answer hands the connection over with nothing read
// past the answer (what the daemon sends next reaches the caller), a
// long header included; a refusal is a *DaemonError and no connection.
func TestTake(t *testing.T) {
	tests := []struct {
		name, answer string
		status       int // 0: taken
	}{
		{"taken", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 0},
		{"taken, a long header", "HTTP/1.1 200 OK\r\nX-Long: " + strings.Repeat("x", 3000) + "\r\nContent-Length: 0\r\n\r\n", 0},
		{"refused", "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: 29\r\n\r\n{\"error\":\"a net ticket, no\"}\n", 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sock := filepath.Join(t.TempDir(), "s")
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				defer c.Close()
				head := make([]byte, 4096)
				c.Read(head)
				c.Write([]byte(tt.answer + "AFTER"))
				time.Sleep(100 * time.Millisecond)
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			c := Client{Socket: sock}
			f, err := c.Take(ctx, PathNet, struct{}{})
			if tt.status != 0 {
				var de *DaemonError
				if !errors.As(err, &de) || de.Status != tt.status || f != nil {
					t.Fatalf("Take = %v, %v; want a %d refusal", f, err, tt.status)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, _ := io.ReadAll(f)
			if string(got) != "AFTER" {
				t.Errorf("read after the answer: %q, want %q", got, "AFTER")
			}
		})
	}
}
