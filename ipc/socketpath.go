package ipc

import "pathgrant/appdirs"

// SocketEnv overrides the socket path, for tests and unusual setups. The
// default path itself is appdirs.Socket.
const SocketEnv = appdirs.SocketEnv
