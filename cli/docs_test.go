package cli

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The README is the page a user reads first: short, opening with the two
// commands that install and test pathgrant, and linking the reference pages
// under docs/. These tests hold it to that, and hold every relative link in
// the README and in docs/ to a file (and heading) that exists in the
// repository, so a page moved or renamed cannot leave a dead link behind.

// docsRoot is the repository root, seen from this package's folder.
const docsRoot = ".."

// readmeMaxLines is the README's budget: beyond it the reference belongs in docs/.
const readmeMaxLines = 300

// readmeOpening is how the README starts: its title and exactly the two
// commands for a fresh machine (one installs what is missing and starts the
// app, one runs every test).
const readmeOpening = "# pathgrant\n\n```sh\n" +
	"./scripts/run     # installs what is missing (Debian packages, checks Go), builds, and starts pathgrant\n" +
	"./scripts/test    # runs all the tests: gofmt, vet, unit, the security suites as an ordinary user too, race, fuzz (bounded), benchmarks\n" +
	"```\n"

func TestReadmeIsForUsers(t *testing.T) {
	readme := readDoc(t, filepath.Join(docsRoot, "README.md"))
	t.Run("under the line budget", func(t *testing.T) {
		if n := strings.Count(readme, "\n"); n >= readmeMaxLines {
			t.Errorf("README.md has %d lines, want fewer than %d: move reference text to docs/", n, readmeMaxLines)
		}
	})
	t.Run("starts with the two commands", func(t *testing.T) {
		if !strings.HasPrefix(readme, readmeOpening) {
			t.Errorf("README.md does not start with:\n%s", readmeOpening)
		}
	})
	for _, cmd := range []string{"scripts/run", "scripts/test"} {
		t.Run(cmd+" is an executable", func(t *testing.T) {
			fi, err := os.Stat(filepath.Join(docsRoot, cmd))
			if err != nil || fi.Mode()&0o111 == 0 {
				t.Errorf("the README's command %s is not an executable file (%v)", cmd, err)
			}
		})
	}
	t.Run("CI runs the README's test command", func(t *testing.T) {
		if ci := readDoc(t, filepath.Join(docsRoot, ".ci", "run")); !strings.Contains(ci, "\nexec scripts/test") {
			t.Errorf(".ci/run does not exec scripts/test, the README's test command:\n%s", ci)
		}
	})
}

// TestDocsLinksResolve walks every link of the README and of each page in
// docs/: each relative one must name a file inside the repository, and an
// anchor a heading of the page it points at.
func TestDocsLinksResolve(t *testing.T) {
	for _, page := range docPages(t) {
		t.Run(page, func(t *testing.T) {
			for _, p := range docLinkProblems(docsRoot, page) {
				t.Error(p)
			}
		})
	}
}

// TestDocsPagesLinked holds the README to linking every page in docs/, and
// each page to linking back to the README.
func TestDocsPagesLinked(t *testing.T) {
	readmeLinks := docLinkTargets(readDoc(t, filepath.Join(docsRoot, "README.md")))
	for _, page := range docPages(t) {
		if page == "README.md" {
			continue
		}
		t.Run(page, func(t *testing.T) {
			if !containsTarget(readmeLinks, page) {
				t.Errorf("README.md does not link %s", page)
			}
			if !containsTarget(docLinkTargets(readDoc(t, filepath.Join(docsRoot, page))), "../README.md") {
				t.Errorf("%s does not link back to ../README.md", page)
			}
		})
	}
}

// TestDocLinkProblemsCatches shows the link check failing on each kind of
// bad link, and passing the good ones, on pages made for it.
func TestDocLinkProblemsCatches(t *testing.T) {
	cases := []struct {
		name, text string
		want       string // a substring of the one problem expected; "" for none
	}{
		{"a file that exists", "see [b](b.md)", ""},
		{"an image that exists", "![shot](img/p.png)", ""},
		{"a heading of another page", "see [b](b.md#the-second-part)", ""},
		{"a heading of this page", "# Top\n\n[up](#top)", ""},
		{"a web address", "[w](https://example.com/x.md)", ""},
		{"a link in a code span", "run `[x](nothing.md)`", ""},
		{"a link in a fenced block", "```\n[x](nothing.md)\n```", ""},
		{"a missing file", "see [c](c.md)", "no such file"},
		{"a missing image", "![shot](img/gone.png)", "no such file"},
		{"a missing heading", "see [b](b.md#not-there)", "no heading"},
		{"a missing heading here", "# Top\n\n[x](#bottom)", "no heading"},
		{"a path outside the repository", "see [s](../../elsewhere/notes.md)", "outside the repository"},
		{"an absolute path", "see [s](/etc/hostname)", "absolute"},
		{"a reference definition", "[s][r]\n\n[r]: missing.md", "no such file"},
		{"an html image", `<img src="img/gone.png">`, "no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeDoc(t, filepath.Join(root, "docs", "b.md"), "# B\n\n## The second part\n")
			writeDoc(t, filepath.Join(root, "docs", "img", "p.png"), "png")
			writeDoc(t, filepath.Join(root, "docs", "a.md"), c.text+"\n")
			got := docLinkProblems(root, "docs/a.md")
			switch {
			case c.want == "" && len(got) != 0:
				t.Errorf("problems %q, want none", got)
			case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
				t.Errorf("problems %q, want one saying %q", got, c.want)
			}
		})
	}
}

// docPages lists the README and every Markdown page in docs/, relative to the root.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(docsRoot, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/ (%v)", err)
	}
	out := []string{"README.md"}
	for _, p := range pages {
		rel, _ := filepath.Rel(docsRoot, p)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

var (
	docFence      = regexp.MustCompile("(?ms)^ {0,3}(```|~~~).*?^ {0,3}(```|~~~)[^\n]*$")
	docCodeSpan   = regexp.MustCompile("``[^`]*``|`[^`\n]*`")
	docInlineLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	docRefDef     = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)`)
	docHTMLLink   = regexp.MustCompile(`(?i)\b(?:src|href)\s*=\s*"([^"]+)"`)
	docScheme     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	docHeading    = regexp.MustCompile(`(?m)^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$`)
)

// docProse is a page's text without its code: links and headings in code
// blocks and code spans are examples, not links.
func docProse(text string) string {
	return docCodeSpan.ReplaceAllString(docFence.ReplaceAllString(text, ""), "")
}

// docLinkTargets lists the targets of a page's links: inline links and
// images, reference definitions, and HTML src and href attributes.
func docLinkTargets(text string) []string {
	prose := docProse(text)
	var out []string
	for _, re := range []*regexp.Regexp{docInlineLink, docRefDef, docHTMLLink} {
		for _, m := range re.FindAllStringSubmatch(prose, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

func containsTarget(targets []string, page string) bool {
	for _, t := range targets {
		if strings.SplitN(t, "#", 2)[0] == page {
			return true
		}
	}
	return false
}

// docLinkProblems checks every link of page (relative to root): a relative
// target must name a file inside root, and an anchor a heading of the page
// it points at. Web addresses are not fetched.
func docLinkProblems(root, page string) []string {
	text, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	for _, target := range docLinkTargets(string(text)) {
		if p := docLinkProblem(root, page, target); p != "" {
			out = append(out, fmt.Sprintf("%s: link %q: %s", page, target, p))
		}
	}
	return out
}

func docLinkProblem(root, page, target string) string {
	if docScheme.MatchString(target) {
		return ""
	}
	path, anchor, _ := strings.Cut(target, "#")
	if strings.HasPrefix(path, "/") {
		return "an absolute path: links must stay inside the repository"
	}
	if unescaped, err := url.PathUnescape(path); err == nil {
		path = unescaped
	}
	file := filepath.Join(root, page)
	if path != "" {
		file = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
	}
	rel, err := filepath.Rel(root, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "outside the repository"
	}
	if _, err := os.Stat(file); err != nil {
		return "no such file"
	}
	if anchor == "" || !strings.HasSuffix(file, ".md") {
		return ""
	}
	text, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	if !docAnchors(string(text))[strings.ToLower(anchor)] {
		return "no heading " + anchor + " in " + filepath.ToSlash(rel)
	}
	return ""
}

// docAnchors is the set of anchors a Markdown renderer gives a page's
// headings: lower case, punctuation dropped, spaces as hyphens, a repeated
// heading numbered (-1, -2, …).
func docAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, m := range docHeading.FindAllStringSubmatch(docFence.ReplaceAllString(text, ""), -1) {
		slug := docSlug(m[1])
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

func docSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(b)
}

func writeDoc(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
