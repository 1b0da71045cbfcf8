// Package ipc is the pathgrant daemon's local API: HTTP/1.1 over a Unix
// socket that only the user's own processes may use. It owns the
// transport and nothing of the decisions: the listener and its connection
// bounds, the peer's credentials and process lineage, strict decoding,
// the route table (routes.go: who may call each route and where its
// session id may come from) and thin handlers that decode, call the
// engine (package engine) and encode. The wire types are package wire's.
package ipc
