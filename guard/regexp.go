package guard

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles a pattern on first use. The guard's patterns serve
// only some commands (sed, awk, chmod, inline programs), and compiling them
// all at start-up would cost every `pathgrant` invocation ~0.2 ms.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
