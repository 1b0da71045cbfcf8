package grants

import "errors"

// The errors callers branch on. Every error the store returns wraps one of
// these or carries the underlying cause with context.
var (
	// ErrAlreadyRunning means another process holds the store's lock. Only
	// one daemon may own the store; the message says "already running".
	ErrAlreadyRunning = errors.New("another pathgrant is already running with this store")
	// ErrCorrupt means the store file cannot be trusted. The store is never
	// replaced silently: the user has to move the file aside.
	ErrCorrupt = errors.New("store is corrupt")
	// ErrUnsafeFile means the store file or its folder could be read or
	// replaced by someone other than the user (permissions or owner).
	ErrUnsafeFile = errors.New("unsafe store file")
	// ErrNotFound means no grant or session has the given id.
	ErrNotFound = errors.New("not found")
	// ErrEnded means the grant no longer serves: it expired, was revoked,
	// consumed or invalidated, or its session ended.
	ErrEnded = errors.New("grant has ended")
	// ErrExpired means the grant's time is up even if the sweeper has not
	// recorded it yet.
	ErrExpired = errors.New("grant has expired")
	// ErrWrongSession means a session or once grant was presented by a
	// session other than the one it was approved in.
	ErrWrongSession = errors.New("grant belongs to another session")
	// ErrForeignDevice means a device grant was approved on another machine
	// (the store was copied) and is not honoured here.
	ErrForeignDevice = errors.New("device grant is bound to another device")
	// ErrIdentityChanged means the granted path was removed or replaced
	// since approval; the grant has been invalidated.
	ErrIdentityChanged = errors.New("granted path was replaced since approval")
	// ErrDeviceReadOnly means a device grant was requested for an operation
	// other than read. Durable grants are read-only by policy.
	ErrDeviceReadOnly = errors.New("device grants are read-only")
	// ErrNoDeviceIdentity means this machine's identity could not be read, so
	// device grants can be neither created nor honoured.
	ErrNoDeviceIdentity = errors.New("no device identity")
	// ErrSessionEnded means the session has ended or passed its max age.
	ErrSessionEnded = errors.New("session has ended")
	// ErrInvalid means the caller passed a malformed grant, record or filter.
	ErrInvalid = errors.New("invalid argument")
)
