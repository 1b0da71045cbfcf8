//go:build !linux

package applink

import (
	"fmt"
	"net"
	"os"
	"time"

	"pathgrant/engine"
)

// errNoBootstrap: the link's bootstrap needs the sender's credentials
// with each message (SCM_CREDENTIALS), which only Linux has; elsewhere the
// daemon runs headless (see docs/app.md).
var errNoBootstrap = fmt.Errorf("%w: the app's link needs Linux's socket credentials", engine.ErrNoWindow)

func bootPair() (*os.File, *os.File, error) { return nil, nil, errNoBootstrap }

func awaitHello(*os.File, int, time.Duration) (net.Conn, net.Conn, error) {
	return nil, nil, errNoBootstrap
}

func sendHello() (net.Conn, net.Conn, error) { return nil, nil, errNoBootstrap }

// forbidTracing has no equivalent here: macOS refuses to attach to a
// process without the debugger entitlement or root.
func forbidTracing() error { return nil }
