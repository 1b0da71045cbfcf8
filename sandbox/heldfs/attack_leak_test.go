//go:build linux

package heldfs

// Attack (liveness): a command's token and names must not outlive it.
// Were they kept after Unregister, they would count against maxNodes
// over the daemon's life, until every later command's lookups failed
// with ENFILE, each keeping its command (Ask, the session behind it)
// alive.

import (
	"log/slog"
	"testing"
)

func TestAttackUnregisterLeaksNodes(t *testing.T) {
	fsys, err := newFileSystem(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{fs: fsys}
	root := t.TempDir()
	before := len(fsys.nodes)
	for i := range 1000 {
		tok := "tok" + itoa(i)
		if err := s.Register(tok, Command{Roots: []string{root}}); err != nil {
			t.Fatal(err)
		}
		s.Unregister(tok)
	}
	if got := len(fsys.nodes) - before; got != 0 {
		t.Errorf("1000 commands registered and unregistered left %d nodes behind", got)
	}
}

func itoa(i int) string {
	const d = "0123456789"
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{d[i%10]}, b...)
	}
	return string(b)
}

// AttackNodeCount is how many nodes the file system keeps (for the
// external attack tests).
func AttackNodeCount(s *Server) int {
	s.fs.mu.Lock()
	defer s.fs.mu.Unlock()
	return len(s.fs.nodes)
}
