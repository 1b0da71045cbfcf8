package grants

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"pathgrant/guard"
)

// The child half of TestCrashKeepsCommittedGrants runs in a re-executed
// test binary when these variables are set.
const (
	crashStoreEnv = "PATHGRANT_TEST_CRASH_STORE"
	crashFileEnv  = "PATHGRANT_TEST_CRASH_FILE"
)

var crashOptions = Options{MachineID: "crash-test", NoWatch: true}

// TestCrashChild is not a test on its own: it writes grants until killed,
// printing each id once Put has returned (and so committed).
func TestCrashChild(t *testing.T) {
	store, file := os.Getenv(crashStoreEnv), os.Getenv(crashFileEnv)
	if store == "" {
		t.Skip("only runs as the child of TestCrashKeepsCommittedGrants")
	}
	s, err := Open(store, crashOptions)
	if err != nil {
		fmt.Printf("ERR open: %v\n", err)
		os.Exit(3)
	}
	for {
		g, err := s.Put(NewGrant{Scope: ScopeDevice, Op: guard.OpRead, Path: file, Kind: guard.KindFile})
		if err != nil {
			fmt.Printf("ERR put: %v\n", err)
			os.Exit(3)
		}
		fmt.Println(g.ID)
	}
}

func TestCrashKeepsCommittedGrants(t *testing.T) {
	rounds := 50
	if testing.Short() {
		rounds = 10
	}
	dir := canonicalTempDir(t)
	store := filepath.Join(dir, "state", "pathgrant.db")
	file := filepath.Join(dir, "granted")
	must(t, os.WriteFile(file, nil, 0o600))
	s, err := Open(store, crashOptions) // created once, as the daemon would
	must(t, err)
	must(t, s.Close())

	committed := map[string]bool{}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for round := range rounds {
		for _, id := range crashRound(t, store, file, rng, round%5 == 0) {
			committed[id] = true
		}
		verifyAfterCrash(t, store, committed, round)
	}
	t.Logf("%d rounds, %d grants committed before kills", rounds, len(committed))
	if len(committed) < rounds {
		t.Errorf("only %d grants committed over %d rounds; the child barely ran", len(committed), rounds)
	}
}

// crashRound starts a child, kills it with SIGKILL at a random moment
// (early: possibly while it opens the store; else after its first commit)
// and returns the ids it printed in full.
func crashRound(t *testing.T, store, file string, rng *rand.Rand, early bool) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	cmd.Env = append(os.Environ(), crashStoreEnv+"="+store, crashFileEnv+"="+file)
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	lines := make(chan string, 1024)
	go readLines(out, lines)
	var got []string
	if !early {
		select {
		case first, ok := <-lines:
			if ok {
				got = append(got, first)
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatal("child wrote nothing in 10 s")
		}
	}
	time.Sleep(time.Duration(rng.IntN(20_000)) * time.Microsecond)
	// Signal fails only if the child already exited; its output says why.
	_ = cmd.Process.Signal(syscall.SIGKILL)
	// Read to EOF before Wait, which would close the pipe early.
	for l := range lines {
		got = append(got, l)
	}
	_ = cmd.Wait()
	var ids []string
	for _, l := range got {
		if !strings.HasPrefix(l, "g-") {
			t.Fatalf("child: %s", l)
		}
		ids = append(ids, l)
	}
	return ids
}

// readLines sends each complete line; a line cut by the kill is dropped.
func readLines(r io.Reader, lines chan<- string) {
	defer close(lines)
	br := bufio.NewReader(r)
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return
		}
		lines <- strings.TrimSuffix(l, "\n")
	}
}

func verifyAfterCrash(t *testing.T, store string, committed map[string]bool, round int) {
	t.Helper()
	s, err := Open(store, crashOptions)
	if err != nil {
		t.Fatalf("round %d: reopen after SIGKILL: %v", round, err)
	}
	defer s.Close()
	for id := range committed {
		if _, err := s.Get(id); err != nil {
			t.Fatalf("round %d: grant %s was committed before the kill but is gone: %v", round, id, err)
		}
	}
}
