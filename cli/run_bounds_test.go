package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pathgrant/engine"
	"pathgrant/engine/boundstest"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
)

// TestRunRegistrationBounds runs the bounds table (package boundstest)
// through `pathgrant run`, as a workspace and as a read-only root: a
// refused root is one line naming it and its class, the command never
// starts, and the refusal is audited; an allowed one runs the command.
func TestRunRegistrationBounds(t *testing.T) {
	t.Setenv("PATHGRANT_SESSION", "")
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := boundstest.NewLayout(t, root)
	sock, storePath := root+"/run/pathgrant.sock", root+"/state/pathgrant.db"
	if err := os.MkdirAll(l.Work, 0o700); err != nil {
		t.Fatal(err)
	}
	store := ipctest.OpenStore(t, storePath)
	device := engine.DefaultDevicePolicy(l.Getenv, l.Home, storePath, l.Socket())
	device.Protected = append(device.Protected, root+"/state", root+"/run")
	srv := ipc.New(ipc.Config{HooksBelow: true, Store: store, Home: l.Home, Logger: ipctest.Quiet, Device: device, Getenv: l.Getenv})
	ipctest.Serve(t, srv, sock)
	marker, cases := root+"/ran", boundstest.Cases(t, l)
	for _, role := range []string{"workspace", "read-only root"} {
		flag := map[string]string{"workspace": "--workspace", "read-only root": "--read-only"}[role]
		for _, c := range cases {
			t.Run(role+"/"+c.Name, func(t *testing.T) {
				os.Remove(marker)
				res := runLaunch("--workspace", l.Work, flag, c.Root, "--socket", sock, "--", "/bin/sh", "-c", "touch "+marker)
				_, ranErr := os.Stat(marker)
				want := c.Want
				if role == "read-only root" && c.WorkspaceOnly {
					want = ""
				}
				if want == "" {
					if res.code != 0 || ranErr != nil {
						t.Fatalf("exit %d stderr %q; want the command run", res.code, res.stderr)
					}
					return
				}
				canon, err := (guard.Canonicalizer{Home: l.Home}).Canonical(c.Root, "/", true)
				if err != nil {
					t.Fatal(err)
				}
				line := "the daemon refused the session: " + role + " " + canon + " "
				if res.code != exitFail || ranErr == nil || !strings.Contains(res.stderr, line) ||
					!strings.Contains(res.stderr, want) || strings.Count(res.stderr, "\n") != 1 {
					t.Fatalf("exit %d stderr %q, ran %v; want exit 1, one line %q…%q", res.code, res.stderr, ranErr == nil, line, want)
				}
				wantAudited(t, store, canon)
			})
		}
	}
}

// wantAudited fails unless the audit log holds a denial naming root.
func wantAudited(t *testing.T, store *grants.Store, root string) {
	t.Helper()
	recs, err := store.AuditRecords(grants.AuditFilter{Kind: grants.KindDeny})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Path == root {
			return
		}
	}
	t.Errorf("no %s audit record names %s", grants.KindDeny, root)
}
