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
	"pathgrant/wire"
)

// codeAlphabet is what approval codes are made of: upper-case letters and
// digits without 0, O, 1, I or l, so a code read off a screen is typed
// back without guessing. 32 symbols: one random byte's low five bits pick
// one, uniformly.
const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// codeLen is the length of an approval code: 40 bits, against at most
// MaxCodeTries guesses at a request's codes (at most 18 of them, one per
// choice: a guess hits one with odds below 1 in 10^10).
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
// hash (with the choice it stands for, codeLock), so a code typed for
// another request never matches. Case, spaces and dashes the person may
// add are ignored.
func codeDigest(requestID, code string) [32]byte {
	norm := strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, strings.ToUpper(code))
	return sha256.Sum256([]byte(requestID + "\x00" + norm))
}

// choicesFor lists the approvals the person is offered for a request
// with suggested scope sug, for a session whose policy decides whether a
// file's folder can be offered: once and session, and device for a read;
// the suggested target, and a file's folder when it may be granted; each
// durable scope for each duration of its menu. Each gets a code of its
// own, so a code never authorises more than its one choice.
func choicesFor(sug guard.Scope, offerable func(op guard.Op, path string, tree bool) bool) []wire.Choice {
	scopes := []grants.Scope{grants.ScopeOnce, grants.ScopeSession}
	if sug.Op == guard.OpRead || sug.Op == guard.OpConnect {
		scopes = append(scopes, grants.ScopeDevice)
	}
	kinds := []guard.GrantKind{sug.Kind}
	if sug.Kind == guard.KindFile && offerable(sug.Op, filepath.Dir(sug.Path), true) {
		kinds = append(kinds, guard.KindFolder)
	}
	var out []wire.Choice
	for _, scope := range scopes {
		for _, kind := range kinds {
			for _, lasts := range wire.OfferedFor(string(scope)) {
				out = append(out, wire.Choice{Scope: string(scope), Kind: kind, For: lasts})
			}
		}
	}
	return out
}

// boundCode is what the daemon keeps of one choice's code: the choice
// and the code's digest, never the code.
type boundCode struct {
	choice wire.Choice
	digest [32]byte
}

// codeLock is what the daemon keeps of a request's codes: each choice's
// digest, and the wrong tries so far (for the request, whichever code
// was meant). A spent lock holds nothing and matches nothing.
type codeLock struct {
	codes []boundCode
	wrong int
}

// newCodeLock makes a fresh, distinct code for each choice of request
// id; it returns the lock, which keeps only their digests, and the codes
// for the person.
func newCodeLock(id string, choices []wire.Choice) (codeLock, []wire.ChoiceCode) {
	l := codeLock{codes: make([]boundCode, 0, len(choices))}
	shown := make([]wire.ChoiceCode, 0, len(choices))
	seen := map[[32]byte]bool{}
	for _, c := range choices {
		code := newApprovalCode()
		d := codeDigest(id, code)
		for seen[d] { // 40 bits each: a repeat is all but impossible, and never kept
			code = newApprovalCode()
			d = codeDigest(id, code)
		}
		seen[d] = true
		l.codes = append(l.codes, boundCode{choice: c, digest: d})
		shown = append(shown, wire.ChoiceCode{Choice: c, Code: code})
	}
	return l, shown
}

// match finds the choice whose code has digest d. Every digest is
// compared, in constant time, whichever matches, so the time taken says
// nothing of which choice (or whether any) did.
func (l *codeLock) match(d [32]byte) (wire.Choice, bool) {
	var found wire.Choice
	ok := false
	for _, b := range l.codes {
		if subtle.ConstantTimeCompare(d[:], b.digest[:]) == 1 {
			found, ok = b.choice, true
		}
	}
	return found, ok
}
