package sandbox

import (
	"errors"
	"io/fs"
	"testing"
)

// countingFS answers from a table and counts the questions.
type countingFS struct {
	canon map[string]string
	asked map[string]int
}

func (c *countingFS) ReadDir(dir string) ([]Entry, error) {
	c.asked["readdir "+dir]++
	return nil, nil
}

func (c *countingFS) Canonical(path string) (string, error) {
	c.asked["canonical "+path]++
	if p, ok := c.canon[path]; ok {
		return p, nil
	}
	return "", fs.ErrNotExist
}

func (c *countingFS) Type(path string) (EntryType, error) {
	c.asked["type "+path]++
	if _, ok := c.canon[path]; ok {
		return TypeDir, nil
	}
	return TypeOther, fs.ErrNotExist
}

// TestMemoFS: each path is canonicalised and typed once, errors included,
// and the answers are the wrapped file system's.
func TestMemoFS(t *testing.T) {
	inner := &countingFS{canon: map[string]string{"/l": "/t"}, asked: map[string]int{}}
	m := NewMemoFS(inner)
	tests := []struct {
		name, path, want string
		missing          bool
	}{
		{"a link", "/l", "/t", false},
		{"a link again", "/l", "/t", false},
		{"missing", "/m", "", true},
		{"missing again", "/m", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.Canonical(tt.path)
			if got != tt.want || errors.Is(err, fs.ErrNotExist) != tt.missing {
				t.Errorf("Canonical(%s) = %q, %v", tt.path, got, err)
			}
			if _, err := m.Type(tt.path); errors.Is(err, fs.ErrNotExist) != tt.missing {
				t.Errorf("Type(%s): %v", tt.path, err)
			}
		})
	}
	for q, n := range inner.asked {
		if n != 1 {
			t.Errorf("%s asked %d times", q, n)
		}
	}
}
