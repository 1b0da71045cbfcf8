// Package tcc knows macOS privacy controls (Transparency, Consent and
// Control): which folders they guard, and how to tell their refusal from
// pathgrant's. A process that the person has not allowed into one of
// those folders (System Settings → Privacy & Security → Files and Folders,
// or Full Disk Access) gets "Operation not permitted" (EPERM) reading it,
// which to the person looks exactly like pathgrant refusing; the line this
// package writes names the real cause and the setting that fixes it.
//
// Everything here is a pure function of its arguments (the OS name, the
// home folder, the path, the error), so Linux tests pin the macOS answers.
// It imports only the standard library.
package tcc

import (
	"path/filepath"
	"strings"
)

// The settings pane that lets an app in. Files and Folders lists the
// folders an app asked for, one switch each; Full Disk Access covers every
// guarded place, and is the only switch for some.
const (
	FilesAndFolders = "Files and Folders"
	FullDiskAccess  = "Full Disk Access"
)

// Folder is one place macOS privacy controls guard.
type Folder struct {
	// Path is absolute; for volumes it is /Volumes, whose members (not
	// itself) are guarded.
	Path string
	// Name is how System Settings names the switch ("Downloads Folder").
	Name string
	// Pane is where that switch is: FilesAndFolders or FullDiskAccess.
	Pane string
}

// guarded is relative to the home folder unless absolute. The first
// rows have their own switch in Files and Folders; the rest (among others)
// open only with Full Disk Access.
var guarded = []Folder{
	{"Desktop", "Desktop Folder", FilesAndFolders},
	{"Documents", "Documents Folder", FilesAndFolders},
	{"Downloads", "Downloads Folder", FilesAndFolders},
	// iCloud Drive, and Desktop and Documents when they sync to it.
	{"Library/Mobile Documents", "iCloud Drive", FilesAndFolders},
	// Third-party cloud storage through File Provider (Dropbox, OneDrive, Google Drive).
	{"Library/CloudStorage", "cloud storage", FilesAndFolders},
	// Removable and network volumes are both mounted here; the path does not say which.
	{"/Volumes", "Removable Volumes or Network Volumes", FilesAndFolders},
	{"Library/Mail", "Mail", FullDiskAccess},
	{"Library/Messages", "Messages", FullDiskAccess},
	{"Library/Safari", "Safari", FullDiskAccess},
	{"Library/Cookies", "cookies", FullDiskAccess},
	{"Library/Calendars", "Calendars", FullDiskAccess},
	{"Library/Application Support/AddressBook", "Contacts", FullDiskAccess},
	{"Library/Application Support/com.apple.TCC", "privacy settings", FullDiskAccess},
	{"Library/Containers/com.apple.mail", "Mail", FullDiskAccess},
}

// Folders are the guarded places for home, absolute and clean.
func Folders(home string) []Folder {
	out := make([]Folder, len(guarded))
	for i, f := range guarded {
		if !filepath.IsAbs(f.Path) {
			f.Path = filepath.Join(home, f.Path)
		}
		out[i] = f
	}
	return out
}

// Guarding is the guarded folder that holds path (the folder itself
// included, except /Volumes, which holds the volumes but is not one), and
// whether there is one. Names compare without case, as on the default
// macOS file system: ~/documents is the Documents folder there. path and
// home should be canonical (no symlink, no ..), as pathgrant's are.
func Guarding(home, path string) (Folder, bool) {
	if !filepath.IsAbs(home) || !filepath.IsAbs(path) {
		return Folder{}, false
	}
	path = filepath.Clean(path)
	for _, f := range Folders(home) {
		if f.Path == "/Volumes" && strings.EqualFold(path, f.Path) {
			continue
		}
		if holds(f.Path, path) {
			return f, true
		}
	}
	return Folder{}, false
}

// holds reports whether dir is p or one of its ancestors, ignoring case.
func holds(dir, p string) bool {
	return strings.EqualFold(dir, p) ||
		len(p) > len(dir) && p[len(dir)] == '/' && strings.EqualFold(p[:len(dir)], dir)
}
