package grants

import (
	"os"

	"pathgrant/appdirs"
)

// EnvStore names the environment variable that overrides the store path, so
// tests and scripts can point every command at a scratch store.
const EnvStore = appdirs.StoreEnv

// ResolvePath picks the store path from the process environment:
// appdirs.Store with os.Getenv.
func ResolvePath(flagValue string) (string, error) {
	return appdirs.Store(flagValue, os.Getenv)
}
