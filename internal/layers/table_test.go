package layers

import (
	"bufio"
	"fmt"
	"regexp"
	"strings"
)

// layerHeading is the heading of the table in docs/ARCHITECTURE.md.
const layerHeading = "## Layers and what each may import"

// row is one line of the layer table: the paths it covers (a folder ending
// in "/" covers that package and those below it unless a longer row does; a
// file covers the package of its folder) and the pathgrant packages, by
// path inside the module, that its packages may import.
type row struct {
	line  int
	paths []string
	allow []string
}

// name is how a problem refers to the row: its first path.
func (r row) name() string { return "`" + r.paths[0] + "`" }

// backticked finds `code` spans: in the path column they are the paths a
// row covers, in the imports column the pathgrant packages it may import
// (third-party libraries are written as plain words).
var backticked = regexp.MustCompile("`([^`]+)`")

// parseTable reads the layer table out of the markdown text of
// docs/ARCHITECTURE.md. Row order is kept: the first row is the highest
// layer.
func parseTable(doc string) ([]row, error) {
	var rows []row
	in, n := false, 0
	sc := bufio.NewScanner(strings.NewReader(doc))
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == layerHeading:
			in = true
		case !in:
		case strings.HasPrefix(line, "|"):
			r, ok, err := parseRow(line, n)
			if err != nil {
				return nil, err
			}
			if ok {
				rows = append(rows, r)
			}
		case len(rows) > 0:
			return rows, nil
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no table under %q", layerHeading)
	}
	return rows, nil
}

// parseRow reads one table line; ok is false for the header and the rule
// under it. A cell may hold a pipe escaped as markdown escapes it (\|).
func parseRow(line string, n int) (row, bool, error) {
	cells := strings.Split(strings.ReplaceAll(strings.Trim(line, "|"), `\|`, "\x00"), "|")
	if len(cells) != 3 {
		return row{}, false, fmt.Errorf("line %d: %d cells, want 3 (path | owns | imports)", n, len(cells))
	}
	path := strings.TrimSpace(cells[0])
	if path == "path" || strings.Trim(path, "-: ") == "" {
		return row{}, false, nil
	}
	r := row{line: n, paths: spans(cells[0]), allow: spans(cells[2])}
	if len(r.paths) == 0 {
		return row{}, false, fmt.Errorf("line %d: no `path` in the first cell", n)
	}
	return r, true, nil
}

func spans(cell string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}
