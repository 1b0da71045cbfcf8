package launch

import (
	"crypto/sha256"
	"encoding/hex"
)

// CommandHash is the hex SHA-256 of shell text, as wire.HeaderCommandHash
// carries it: the front end presents it with an exec capability and the
// daemon compares it with the hash of the text it issued the capability
// for. It lives here, beside CommandText, rather than in wire, so that
// the hook (which links wire but never presents a capability) does not
// link crypto/sha256 and run its package inits at every tool call.
func CommandHash(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:])
}
