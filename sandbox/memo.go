package sandbox

// MemoFS is a ViewFS that answers each question once: exec builds the view
// and then the rules from the same policy, and both canonicalise the same
// protected and blocked-write paths (every write area, each of them twice
// or three times), each a chain of lstat calls. Use one MemoFS for one
// exec only, between reading the policy and starting bubblewrap: it never
// sees a change made after its first answer, so what the view and the
// rules are built from is one snapshot of the file system.
type MemoFS struct {
	fs    ViewFS
	canon map[string]memoCanon
	types map[string]memoType
}

type memoCanon struct {
	path string
	err  error
}

type memoType struct {
	t   EntryType
	err error
}

// NewMemoFS wraps fsys.
func NewMemoFS(fsys ViewFS) *MemoFS {
	return &MemoFS{fs: fsys, canon: map[string]memoCanon{}, types: map[string]memoType{}}
}

// ReadDir lists dir (not remembered: each directory is listed once).
func (m *MemoFS) ReadDir(dir string) ([]Entry, error) { return m.fs.ReadDir(dir) }

// Canonical is fsys's answer for path, asked once.
func (m *MemoFS) Canonical(path string) (string, error) {
	if c, ok := m.canon[path]; ok {
		return c.path, c.err
	}
	p, err := m.fs.Canonical(path)
	m.canon[path] = memoCanon{p, err}
	return p, err
}

// Type is fsys's answer for path, asked once.
func (m *MemoFS) Type(path string) (EntryType, error) {
	if t, ok := m.types[path]; ok {
		return t.t, t.err
	}
	t, err := m.fs.Type(path)
	m.types[path] = memoType{t, err}
	return t, err
}
