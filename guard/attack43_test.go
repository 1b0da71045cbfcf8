package guard

import "testing"

// TestAttack43TarNotALocalPath: tar's modelled create form judges its
// archive and sources as the local paths they name, so a spelling tar
// takes otherwise (a remote archive host:file, bsdtar's @archive source)
// keeps the unknown-command rule instead of being allowed, or offered, as
// a local copy.
func TestAttack43TarNotALocalPath(t *testing.T) {
	reports := []string{"read:{H}/Documents/reports"}
	runEvalCases(t, []evalCase{
		{name: "a remote archive is not a local write", shell: "tar cf host:x.tar ~/Documents/reports", grants: reports, want: Deny},
		{name: "a remote --file is not a local write", shell: "tar -c --file=host:x.tar ~/Documents/reports", grants: reports, want: Deny},
		{name: "a remote archive is not offered", shell: "tar cf host:x.tar ~/Documents/reports", want: Deny, eligible: false},
		{name: "an @archive source outside is a read of it", shell: "tar cf x.tar @{T}/secret/key", want: Deny},
		{name: "an @archive source beside a granted one", shell: "tar cf x.tar ~/Documents/reports @{T}/secret/key", grants: reports, want: Deny},
		{name: "a local archive still modelled", shell: "tar cf x.tar ~/Documents/reports", grants: reports, want: Allow},
	})
}
