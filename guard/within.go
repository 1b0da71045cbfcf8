package guard

import (
	"iter"
	"strings"
)

// Within reports whether the canonical path p is root or lies below it,
// matching whole components only: /a/b contains /a/b/c but not /a/bc.
func Within(root, p string) bool {
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == root || (strings.HasPrefix(p, root) && p[len(root)] == '/')
}

// Ancestors yields the canonical path p itself, then each of its parents up
// to and including "/". It is how every root and grant lookup stays
// O(depth) instead of O(number of entries).
func Ancestors(p string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for {
			if !yield(p) || p == "/" || p == "" {
				return
			}
			i := strings.LastIndexByte(p, '/')
			if i <= 0 {
				p = "/"
			} else {
				p = p[:i]
			}
		}
	}
}
