package prompt

import (
	"path/filepath"
	"strings"

	"pathgrant/guard"
	"pathgrant/wire"
)

// A grant's scope the person may pick before allowing: this file, its
// folder, or a folder above it, never wider than the eligible root the
// request lies in. The request does not name that root, so the window
// stops at the home folder's first-level folder (~/Downloads,
// ~/Documents: the person's own folders, which the device policy makes
// eligible), and at the request's own folder outside the home folder;
// the daemon refuses a wider scope whatever the window offers
// (wire.Decision.Path).

// Scope labels: the file, the folder it is in (or the folder asked
// for); a folder above is labelled by its path.
const (
	LabelFile   = "This file"
	LabelFolder = "Its folder"
	// LabelThisFolder is the one scope of a request for a folder.
	LabelThisFolder = "This folder"
)

// maxScopeUp bounds how many folders above the request's own are
// offered: a menu of a deep path's every ancestor helps nobody.
const maxScopeUp = 4

// ScopeOption is one scope the window offers.
type ScopeOption struct {
	Label string
	Kind  guard.GrantKind
	// Path is the folder when it is above the request's own (sent as
	// wire.Decision.Path); "" for the request's own file or folder.
	Path string
	// Folder is the folder a folder scope covers, for the confirmation.
	Folder string
}

// ScopeOptions are the scopes r may be granted at, narrowest first: the
// file and its folder (or the folder asked for), then the folders above
// it up to the first-level folder of home. A connection has one: its
// destination.
func ScopeOptions(r wire.Request, home string) []ScopeOption {
	if r.Op == wire.OpConnect {
		return []ScopeOption{{Label: LabelFile, Kind: guard.KindFile}}
	}
	var opts []ScopeOption
	folder := r.Path
	if r.Suggested.Kind == guard.KindFolder {
		opts = append(opts, ScopeOption{Label: LabelThisFolder, Kind: guard.KindFolder, Folder: folder})
	} else {
		folder = filepath.Dir(r.Path)
		opts = append(opts,
			ScopeOption{Label: LabelFile, Kind: guard.KindFile},
			ScopeOption{Label: LabelFolder, Kind: guard.KindFolder, Folder: folder})
	}
	top := scopeTop(folder, home)
	for up := filepath.Dir(folder); len(opts) < 2+maxScopeUp && top != "" && within(up, top) && up != folder; up = filepath.Dir(up) {
		opts = append(opts, ScopeOption{Label: Tilde(up, home), Kind: guard.KindFolder, Path: up, Folder: up})
		folder = up
	}
	return opts
}

// scopeTop is the widest folder the window offers above folder: home's
// first-level folder it lies in; "" when it is not below one (outside
// home, or home itself).
func scopeTop(folder, home string) string {
	if home == "" || home == "/" {
		return ""
	}
	rest, ok := strings.CutPrefix(folder, home+"/")
	if !ok || rest == "" {
		return ""
	}
	first, _, _ := strings.Cut(rest, "/")
	return home + "/" + first
}

// within reports whether p is top or below it.
func within(p, top string) bool {
	return p == top || strings.HasPrefix(p, top+"/")
}

// scopeLabels lists the options' labels, for the scope menu.
func scopeLabels(opts []ScopeOption) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.Label
	}
	return out
}
