package tools

// openers are Linux's two ways: openat2, which production uses, and the
// component walk macOS uses, held to the same table.
func openers() map[string]opener {
	return map[string]opener{"openat2": openNoLinks, "walk": openWalk}
}
