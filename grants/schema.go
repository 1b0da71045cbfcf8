package grants

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Bucket names. The grants bucket holds the records; the others are indexes
// kept in step with it inside the same transaction.
var (
	bucketMeta      = []byte("meta")       // schema version, device key
	bucketGrants    = []byte("grants")     // id -> Grant (JSON)
	bucketIndex     = []byte("index")      // path \0 op \0 id -> "" (live grants only)
	bucketBySession = []byte("by_session") // session \0 id -> ""
	bucketExpiry    = []byte("expiry")     // be64(unix nanos) kind id -> ""
	bucketDevice    = []byte("device")     // binding \0 id -> "" (live device grants)
	bucketSessions  = []byte("sessions")   // id -> Session (JSON)
	bucketAudit     = []byte("audit")      // be64(seq) -> Record (JSON)
	bucketAfterRun  = []byte("afterrun")   // id -> the daemon's record of a check it owes (JSON)
	bucketDenials   = []byte("denials")    // id -> Denial (JSON): remembered denials, session and device
)

var allBuckets = [][]byte{
	bucketMeta, bucketGrants, bucketIndex, bucketBySession,
	bucketExpiry, bucketDevice, bucketSessions, bucketAudit, bucketAfterRun, bucketDenials,
}

// Keys in the meta bucket.
var (
	keyVersion        = []byte("version")
	keyDeviceKey      = []byte("device_key")
	keyForeignAudited = []byte("foreign_audited")
)

// migration upgrades the schema by exactly one version inside the open
// transaction; a failure rolls the whole upgrade back.
type migration func(tx *bolt.Tx) error

// migrations[i] upgrades version i+1 to i+2. Append, never edit: a store
// records its version and replays only the steps it has not seen.
var migrations = []migration{}

// schemaVersion is the version this code writes.
func schemaVersion() uint64 { return uint64(len(migrations)) + 1 }

var errNoSchema = errors.New("no pathgrant schema in the file")

// initSchema lays out a new store: every bucket, the version and a fresh
// random device key.
func initSchema(tx *bolt.Tx) error {
	for _, name := range allBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	meta := tx.Bucket(bucketMeta)
	if err := meta.Put(keyVersion, be64(schemaVersion())); err != nil {
		return fmt.Errorf("write schema version: %w", err)
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	if err := meta.Put(keyDeviceKey, key); err != nil {
		return fmt.Errorf("write device key: %w", err)
	}
	return nil
}

// readVersion returns the stored schema version, or errNoSchema for a bbolt
// file that is not a pathgrant store.
func readVersion(tx *bolt.Tx) (uint64, error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return 0, errNoSchema
	}
	v := meta.Get(keyVersion)
	if len(v) != 8 || binary.BigEndian.Uint64(v) == 0 {
		return 0, errNoSchema
	}
	return binary.BigEndian.Uint64(v), nil
}

// needsUpgrade reports whether migrate has work to do, so an up-to-date
// store opens without a write transaction.
func needsUpgrade(tx *bolt.Tx, steps []migration) (bool, error) {
	v, err := readVersion(tx)
	if err != nil {
		return false, err
	}
	if target := uint64(len(steps)) + 1; v > target {
		return false, fmt.Errorf("schema version %d is newer than this pathgrant understands (%d)", v, target)
	}
	for _, name := range allBuckets {
		if tx.Bucket(name) == nil {
			return true, nil
		}
	}
	return v < uint64(len(steps))+1, nil
}

// migrate runs the steps the store has not seen and records the new
// version. Buckets added by later versions are created empty.
func migrate(tx *bolt.Tx, steps []migration) error {
	v, err := readVersion(tx)
	if err != nil {
		return err
	}
	target := uint64(len(steps)) + 1
	for ; v < target; v++ {
		if err := steps[v-1](tx); err != nil {
			return fmt.Errorf("migrate schema %d -> %d: %w", v, v+1, err)
		}
	}
	for _, name := range allBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return tx.Bucket(bucketMeta).Put(keyVersion, be64(target))
}

func be64(v uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return b
}
