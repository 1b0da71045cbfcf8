package grants

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// machineIDFiles are where systemd and D-Bus keep the machine identity.
var machineIDFiles = []string{"/etc/machine-id", "/var/lib/dbus/machine-id"}

// readMachineID returns this machine's identity, or override when set.
func readMachineID(override string) (string, error) {
	if override != "" {
		return override, nil
	}
	var errs []error
	for _, p := range machineIDFiles {
		b, err := os.ReadFile(p)
		if err == nil && len(bytes.TrimSpace(b)) > 0 {
			return strings.TrimSpace(string(b)), nil
		}
		errs = append(errs, fmt.Errorf("read %s: %w", p, err))
	}
	return "", errors.Join(errs...)
}

// deviceBinding ties device grants to this store on this machine: the
// random key stored in the file, plus a hash of the machine id. A copy of
// the file on another machine computes a different binding and honours
// none of its device grants.
func deviceBinding(key []byte, machineID string) string {
	mid := sha256.Sum256([]byte(machineID))
	h := sha256.New()
	h.Write([]byte("pathgrant device binding v1\x00"))
	h.Write(key)
	h.Write(mid[:])
	return hex.EncodeToString(h.Sum(nil))
}

// bindDevice computes the binding and audits, once per machine, device
// grants this machine does not honour. Without a machine identity, device
// grants are neither created nor honoured.
func (s *Store) bindDevice() error {
	mid, err := readMachineID(s.opts.MachineID)
	if err != nil {
		s.log.Warn("no machine identity: device grants disabled", "err", err)
		return nil
	}
	var key []byte
	var due bool
	err = s.view(func(tx *bolt.Tx) error {
		key = bytes.Clone(tx.Bucket(bucketMeta).Get(keyDeviceKey))
		due = len(key) != 32 || foreignDue(tx, deviceBinding(key, mid))
		return nil
	})
	if err == nil && due {
		err = s.update(func(tx *bolt.Tx) (err error) {
			if key, err = deviceKeyOf(tx); err != nil {
				return err
			}
			return s.auditForeign(tx, deviceBinding(key, mid))
		})
	}
	if err != nil {
		return fmt.Errorf("open store %s: bind device: %w", s.path, err)
	}
	s.binding = deviceBinding(key, mid)
	return nil
}

// deviceKeyOf returns the store's device key, creating it if missing.
func deviceKeyOf(tx *bolt.Tx) ([]byte, error) {
	meta := tx.Bucket(bucketMeta)
	if key := meta.Get(keyDeviceKey); len(key) == 32 {
		return bytes.Clone(key), nil
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return key, meta.Put(keyDeviceKey, key)
}

// foreignDue reports whether a foreign-device record is owed: the store
// holds device grants bound elsewhere and this binding has not said so yet.
func foreignDue(tx *bolt.Tx, binding string) bool {
	if string(tx.Bucket(bucketMeta).Get(keyForeignAudited)) == binding {
		return false
	}
	return foreignCount(tx, binding) > 0
}

// auditForeign writes one foreign-device record the first time this
// machine opens a store holding device grants bound elsewhere.
func (s *Store) auditForeign(tx *bolt.Tx, binding string) error {
	if !foreignDue(tx, binding) {
		return nil
	}
	n := foreignCount(tx, binding)
	s.log.Warn("store holds device grants from another device; none are honoured", "count", n)
	rec := Record{Kind: KindForeignDevice, Scope: ScopeDevice,
		Reason: foreignReason(n)}
	if err := s.appendAudit(tx, rec); err != nil {
		return err
	}
	return tx.Bucket(bucketMeta).Put(keyForeignAudited, []byte(binding))
}

func foreignCount(tx *bolt.Tx, binding string) int {
	n := 0
	mine := append([]byte(binding), sep)
	_ = tx.Bucket(bucketDevice).ForEach(func(k, _ []byte) error {
		if !bytes.HasPrefix(k, mine) {
			n++
		}
		return nil
	})
	return n
}

// Foreign reports whether g is a device grant this device does not honour
// (the store was copied from another machine, or this machine has no
// identity), so listings can say why it does not serve.
func (s *Store) Foreign(g Grant) bool {
	return g.Scope == ScopeDevice && (s.binding == "" || g.Device != s.binding)
}

// foreignReason says how many device grants are bound elsewhere, in words.
func foreignReason(n int) string {
	if n == 1 {
		return "1 device grant bound to another device is not honoured"
	}
	return fmt.Sprintf("%d device grants bound to another device are not honoured", n)
}
