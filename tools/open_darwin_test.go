package tools

// openers is macOS's one way, the component walk.
func openers() map[string]opener {
	return map[string]opener{"walk": openNoLinks}
}
