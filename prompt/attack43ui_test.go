package prompt

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
)

// TestAttack43UIHeadlinePushesTheFolderAway: the file's name is the
// agent's to choose (a request's path need not exist). A name padded with
// spaces, or just very long, broken into the headline's lines, was as
// tall as the agent liked: "report.csv" on top, the folder line ("in
// ~/Documents/taxes") pushed below the window's fold, and the scope menu
// offering "Its folder" without saying which. The folder line stays in
// sight in a window of MaxHeight.
func TestAttack43UIHeadlinePushesTheFolderAway(t *testing.T) {
	tests := []struct {
		name string
		base string
	}{
		{"padded with spaces", "report.csv" + strings.Repeat(" ", 2000) + "x"},
		{"padded to a file system's 255 bytes", "report.csv" + strings.Repeat(" ", 244) + "x"},
		{"one long word", strings.Repeat("a", 3000)},
		{"many short words", strings.Repeat("ab ", 1200)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", "/home/u")
			r := readRequest()
			r.Purpose = "reading the report"
			r.Path = "/home/u/Documents/taxes/" + tt.base
			r.Suggested.Path = r.Path
			d, _, w := newTestDialog(t, r)
			w.Resize(fyne.NewSize(WindowWidth, MaxHeight))
			scroll, ok := d.Content().(*fyne.Container).Objects[0].(*container.Scroll)
			if !ok {
				t.Fatalf("content[0] is %T, not the details' scroll", d.Content().(*fyne.Container).Objects[0])
			}
			where := d.details.Objects[5]
			if bottom := where.Position().Y + where.Size().Height; bottom > scroll.Size().Height {
				t.Errorf("the folder line ends at %.0f px, below the %.0f px in sight: the name hides where the file is", bottom, scroll.Size().Height)
			}
		})
	}
}
