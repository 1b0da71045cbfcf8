package e2e

import "fyne.io/fyne/v2/widget"

// fyneButton lets buttonCenter walk the dialog's buttons, some of which
// may be nil.
type fyneButton struct{ *widget.Button }
