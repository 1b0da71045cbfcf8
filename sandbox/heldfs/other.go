//go:build !linux

package heldfs

import (
	"errors"
	"log/slog"
)

var errUnsupported = errors.New("pathgrant's held-open file system is Linux's")

// Server is never mounted here.
type Server struct{}

// Available says this platform has no held-open file system.
func Available() error { return errUnsupported }

// Mount fails here.
func Mount(dir string, log *slog.Logger) (*Server, error) { return nil, errUnsupported }

// Dir is "".
func (s *Server) Dir() string { return "" }

// Close does nothing.
func (s *Server) Close() error { return nil }

// Register fails here.
func (s *Server) Register(token string, c Command) error { return errUnsupported }

// Unregister does nothing.
func (s *Server) Unregister(token string) {}

// Self fails here.
func Self() (Holder, error) { return Holder{}, errUnsupported }
