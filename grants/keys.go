package grants

import (
	"bytes"
	"encoding/binary"
	"time"

	"pathgrant/guard"
)

// Index keys join their parts with NUL, which no canonical path, op,
// session or id contains, so a prefix scan never runs into a neighbour
// (/a/b\0 sorts apart from /a/bc\0).
const sep = 0

func join(parts ...string) []byte {
	var b bytes.Buffer
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(sep)
		}
		b.WriteString(p)
	}
	return b.Bytes()
}

// indexPrefix selects the index entries of op at exactly path.
func indexPrefix(path string, op guard.Op) []byte {
	return append(join(path, string(op)), sep)
}

func indexKey(g Grant) []byte { return join(g.Path, string(g.Op), g.ID) }

func sessionPrefix(session string) []byte { return append([]byte(session), sep) }

func sessionKey(session, id string) []byte { return join(session, id) }

func deviceKey(binding, id string) []byte { return join(binding, id) }

// lastPart returns what follows the final separator: the id in every index.
func lastPart(k []byte) string {
	return string(k[bytes.LastIndexByte(k, sep)+1:])
}

// Expiry entries sort by time, so the sweeper reads only what is due.
const (
	expiryGrant   = 'g'
	expirySession = 's'
)

func expiryKey(at time.Time, kind byte, id string) []byte {
	k := make([]byte, 9, 9+len(id))
	binary.BigEndian.PutUint64(k, uint64(at.UnixNano()))
	k[8] = kind
	return append(k, id...)
}

func parseExpiryKey(k []byte) (at time.Time, kind byte, id string, ok bool) {
	if len(k) < 10 {
		return time.Time{}, 0, "", false
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(k))), k[8], string(k[9:]), true
}
