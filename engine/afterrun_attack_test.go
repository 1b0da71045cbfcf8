package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/sandbox/afterrun"
)

// floodFindings is how many protected folders the command makes: each is
// one thing the check neutralises.
const floodFindings = 2000

// TestCheckFindingsFloodIsBounded: a command that makes thousands of
// protected folders gets each neutralised, but the person's audit log
// (one store write and fsync per record) and the lines the agent is told
// hold a bounded number, plus one that counts the rest: a command cannot
// flood the log past what the person reads, nor hold the daemon's store
// for one write per finding.
func TestCheckFindingsFloodIsBounded(t *testing.T) {
	o := newOwedEnv(t)
	e, _ := o.engine(t)
	plan := afterrun.Begin([]string{o.ws}, true)
	id, err := e.owe("s", plan, e.self, false, "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range floodFindings {
		if err := os.MkdirAll(filepath.Join(o.ws, fmt.Sprintf("d%04d", i), ".vscode"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	started := time.Now()
	lines := e.finishCheck(id, false)
	took := time.Since(started)
	if _, err := os.Stat(filepath.Join(o.ws, fmt.Sprintf("d%04d", floodFindings-1), ".vscode")); err == nil {
		t.Fatal("the last protected folder was left in place")
	}
	recs, aerr := e.AuditRecords(grants.AuditFilter{Session: "s", Kind: grants.KindAfterRun})
	if aerr != nil {
		t.Fatal(aerr)
	}
	if len(recs) > 2*maxFindingsSaid || len(lines) > 2*maxFindingsSaid {
		t.Fatalf("%d audit records and %d lines for %d findings (in %v): want at most %d each", len(recs), len(lines), floodFindings, took, 2*maxFindingsSaid)
	}
}
