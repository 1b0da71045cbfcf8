//go:build !linux

package engine

import (
	"errors"
	"net"
)

// socketPair is Linux's: no command has a way out to hand over here.
func socketPair() ([2]int, error) {
	return [2]int{}, errors.New("no network namespace on this system")
}

// receiveListeners is Linux's: no confined command has a network
// namespace of its own elsewhere.
func receiveListeners(*net.UnixConn) ([]net.Listener, error) {
	return nil, errors.New("no network namespace on this system")
}
