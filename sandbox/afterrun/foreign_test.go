package afterrun

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// foreignWS names the workspace the child run of
// TestForeignFolderIsNoFailure checks as an ordinary user.
const foreignWS = "AFTERRUN_FOREIGN_WS"

// TestForeignFolderIsNoFailure: a workspace holding a folder of another
// user that its owner cannot enter (a database's data folder a container
// made: uid 999, 0700) is checked, not failed: nothing there can be the
// command's (it runs as the owner) or reached by the person's git, so a
// session is not refused every command for it. A folder of another user
// the owner can enter but not list still fails the check (a plant could
// lie below it). Set up as root, checked as nobody in a child run.
func TestForeignFolderIsNoFailure(t *testing.T) {
	if ws := os.Getenv(foreignWS); ws != "" {
		r, err := Check(Begin([]string{ws}, true))
		if (err != nil) != (filepath.Base(ws) == "listless") {
			t.Fatalf("Check = %v, %v", r.Lines(), err)
		}
		return
	}
	if os.Getuid() != 0 {
		t.Skip("sets up folders of other users: run as root (scripts/test)")
	}
	root := t.TempDir()
	bin := filepath.Join(root, "afterrun.test")
	copyFile(t, os.Args[0], bin)
	cases := []struct {
		name string
		mode os.FileMode
	}{
		{"sealed", 0o700},   // nothing below reachable: checked, no failure
		{"listless", 0o711}, // enterable, not listable: a failure
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := filepath.Join(root, tc.name)
			if err := os.MkdirAll(filepath.Join(ws, "pgdata"), 0o755); err != nil {
				t.Fatal(err)
			}
			chownAll(t, ws, 65534)
			if err := os.Chown(filepath.Join(ws, "pgdata"), 999, 999); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(ws, "pgdata"), tc.mode); err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{filepath.Dir(root), root} {
				os.Chmod(d, 0o755)
			}
			cmd := exec.Command(bin, "-test.run=^TestForeignFolderIsNoFailure$", "-test.count=1")
			cmd.Env = []string{foreignWS + "=" + ws, "PATH=/usr/bin:/bin", "HOME=" + ws}
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the check as nobody: %v\n%s", err, out)
			}
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func chownAll(t *testing.T, root string, uid int) {
	t.Helper()
	err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}
