package tcc

// macOS privacy controls judge the app responsible for a process, not the
// process: a command run in Terminal is Terminal's, an agent's tool call
// is its app's. These tables name the usual ones from what they put in
// their children's environment; an app not named here is described by its
// bundle id.

// bundleApps maps __CFBundleIdentifier, which macOS sets for a process an
// app starts, to the app's name in System Settings.
var bundleApps = map[string]string{
	"com.apple.Terminal":             "Terminal",
	"com.googlecode.iterm2":          "iTerm",
	"com.microsoft.VSCode":           "Visual Studio Code",
	"com.todesktop.230313mzl4w4u92":  "Cursor",
	"com.mitchellh.ghostty":          "Ghostty",
	"dev.warp.Warp-Stable":           "Warp",
	"com.github.wez.wezterm":         "WezTerm",
	"net.kovidgoyal.kitty":           "kitty",
	"org.alacritty":                  "Alacritty",
	"com.anthropic.claudefordesktop": "Claude",
	"com.jetbrains.intellij":         "IntelliJ IDEA",
	"com.exafunction.windsurf":       "Windsurf",
	"com.apple.dt.Xcode":             "Xcode",
	"com.microsoft.VSCodeInsiders":   "Visual Studio Code - Insiders",
	"dev.zed.Zed":                    "Zed",
}

// termApps maps TERM_PROGRAM, which terminals set, to the app's name.
var termApps = map[string]string{
	"Apple_Terminal": "Terminal",
	"iTerm.app":      "iTerm",
	"vscode":         "Visual Studio Code",
	"ghostty":        "Ghostty",
	"WarpTerminal":   "Warp",
	"WezTerm":        "WezTerm",
	"zed":            "Zed",
}

// App names the app macOS privacy controls ask about for a process with
// environment getenv: the app that started it, known by its bundle id or
// its terminal. executable, when given, is the process's own binary, named
// when no app shows in the environment (launchd started it, so the binary
// is its own responsible process and is what the person adds under Full
// Disk Access). "" when nothing says.
func App(getenv func(string) string, executable string) string {
	id := getenv("__CFBundleIdentifier")
	if name, ok := bundleApps[id]; ok {
		return name
	}
	if name, ok := termApps[getenv("TERM_PROGRAM")]; ok {
		return name
	}
	switch {
	case id != "":
		return "the app " + id
	case executable != "" && getenv("TERM_PROGRAM") == "":
		return executable
	}
	return ""
}
