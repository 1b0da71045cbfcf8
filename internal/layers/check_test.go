package layers

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// graph maps each pathgrant package, by its path inside the module ("" for
// the module's root), to the pathgrant packages it imports outside tests.
type graph map[string][]string

// covers reports whether the row path p covers the package at rel, and how
// specific the match is (longer wins).
func covers(p, rel string) (int, bool) {
	if dir, ok := strings.CutSuffix(p, "/"); ok {
		if rel == dir || strings.HasPrefix(rel, dir+"/") {
			return len(dir), true
		}
		return 0, false
	}
	dir := path.Dir(p)
	if dir == "." {
		dir = ""
	}
	return len(dir), rel == dir
}

// rowOf is the index of the row that covers rel by the longest path, or -1.
func rowOf(rows []row, rel string) int {
	best, at := -1, -1
	for i, r := range rows {
		for _, p := range r.paths {
			if n, ok := covers(p, rel); ok && n > best {
				best, at = n, i
			}
		}
	}
	return at
}

// check holds g to rows and returns every problem, one line each: a
// path no package or file answers to (exists says what is there), a
// package no row covers, an import its row does not allow, an allowed
// package that does not exist, that its own row or one above it covers
// (the table is in layer order, highest first, so an allow-list may only
// name lower rows), or that none of the row's packages imports (the table
// says what the code does, not more).
func check(rows []row, g graph, exists func(path string) bool) []string {
	var probs []string
	for _, r := range rows {
		for _, p := range r.paths {
			if !exists(p) {
				probs = append(probs, fmt.Sprintf("row %s: %s does not exist", r.name(), p))
			}
		}
	}
	used := make([]map[string]bool, len(rows))
	for _, pkg := range sortedKeys(g) {
		i := rowOf(rows, pkg)
		if i < 0 {
			probs = append(probs, fmt.Sprintf("package %s: no row of the table covers it", show(pkg)))
			continue
		}
		if used[i] == nil {
			used[i] = map[string]bool{}
		}
		for _, imp := range g[pkg] {
			used[i][imp] = true
			if !slices.Contains(rows[i].allow, imp) {
				probs = append(probs, fmt.Sprintf("package %s imports %s, which row %s does not allow", show(pkg), imp, rows[i].name()))
			}
		}
	}
	for i, r := range rows {
		probs = append(probs, checkAllow(rows, i, r, g, used[i])...)
	}
	return probs
}

// checkAllow is check's look at one row's allow-list.
func checkAllow(rows []row, i int, r row, g graph, used map[string]bool) []string {
	var probs []string
	for _, a := range r.allow {
		_, known := g[a]
		switch j := rowOf(rows, a); {
		case !known:
			probs = append(probs, fmt.Sprintf("row %s allows %s, which is no package", r.name(), a))
		case j >= 0 && j <= i:
			probs = append(probs, fmt.Sprintf("row %s allows %s, which row %s covers, not below it", r.name(), a, rows[j].name()))
		case !used[a]:
			probs = append(probs, fmt.Sprintf("row %s allows %s, which none of its packages imports", r.name(), a))
		}
	}
	return probs
}

func show(pkg string) string {
	if pkg == "" {
		return "(module root)"
	}
	return pkg
}

func sortedKeys(g graph) []string {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
