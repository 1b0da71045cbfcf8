package engine

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"path/filepath"
	"strings"

	"pathgrant/grants"
	"pathgrant/guard"
)

// codeAlphabet is what approval codes are made of: upper-case letters and
// digits without 0, O, 1, I or l, so a code read off a screen is typed
// back without guessing. 32 symbols: one random byte's low five bits pick
// one, uniformly.
const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// codeLen is the length of an approval code: 40 bits, against at most
// MaxCodeTries guesses.
const codeLen = 8

// MaxCodeTries is how many wrong codes a request takes; the last one
// denies it.
const MaxCodeTries = 5

// newApprovalCode returns a fresh code from crypto/rand.
func newApprovalCode() string {
	b := make([]byte, codeLen)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // the kernel's RNG never fails on Linux
	}
	for i := range b {
		b[i] = codeAlphabet[b[i]&31]
	}
	return string(b)
}

// codeDigest binds a code to one request: the daemon keeps only this
// hash, so a code typed for another request never matches. Case, spaces
// and dashes the person may add are ignored.
func codeDigest(requestID, code string) [32]byte {
	norm := strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, strings.ToUpper(code))
	return sha256.Sum256([]byte(requestID + "\x00" + norm))
}

// ceiling is the widest grant the person was offered for a request, and
// so the most its code can authorise: the prompt's buttons (once, session,
// and device for reads) and targets (the suggested file or folder, and a
// file's folder when that folder could be granted), which the headless
// log line repeats. A code never authorises more than that.
type ceiling struct {
	scope  grants.Scope
	folder bool // a file's folder may be chosen
}

// scopeRank orders the scopes from narrowest to widest.
var scopeRank = map[grants.Scope]int{grants.ScopeOnce: 1, grants.ScopeSession: 2, grants.ScopeDevice: 3}

// ceilingFor is the ceiling of a request with suggested scope sug, for a
// session whose policy decides whether the folder can be offered.
func ceilingFor(sug guard.Scope, offerable func(op guard.Op, path string, tree bool) bool) ceiling {
	c := ceiling{scope: grants.ScopeSession}
	if sug.Op == guard.OpRead {
		c.scope = grants.ScopeDevice
	}
	c.folder = sug.Kind == guard.KindFile && offerable(sug.Op, filepath.Dir(sug.Path), true)
	return c
}

// allows reports whether scope and kind stay within the ceiling of a
// request whose suggested scope is sug.
func (c ceiling) allows(scope grants.Scope, kind guard.GrantKind, sug guard.Scope) bool {
	r, ok := scopeRank[scope]
	if !ok || r > scopeRank[c.scope] {
		return false
	}
	switch kind {
	case "", sug.Kind:
		return true
	case guard.KindFolder:
		return c.folder
	}
	return false
}

// codeLock is what the daemon keeps of a request's code: its digest, the
// ceiling it was shown with, and the wrong tries so far.
type codeLock struct {
	digest  [32]byte
	ceiling ceiling
	wrong   int
}

// matches compares in constant time; a spent lock matches nothing.
func (l *codeLock) matches(d [32]byte) bool {
	if l.digest == ([32]byte{}) {
		return false
	}
	return subtle.ConstantTimeCompare(d[:], l.digest[:]) == 1
}
