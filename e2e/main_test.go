package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain removes the binaries the run built (appBinary,
// activationBinaries): a run leaves nothing behind in the temporary
// folder.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	if activationBin != "" {
		os.RemoveAll(activationBin)
	}
	os.Exit(code)
}
