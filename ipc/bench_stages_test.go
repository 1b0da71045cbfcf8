package ipc

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"pathgrant/engine"
	"pathgrant/guard"
	"pathgrant/wire"
)

// BenchmarkCheckStages times, one sub-benchmark each and in process, the
// stages an allowed check passes through in the daemon, so that the gap
// between BenchmarkCheckVsEcho's check and its bare HTTP server can be
// put where it belongs. Peer credentials and the lineage are read once
// per connection, not per check; the others are paid by every check.
func BenchmarkCheckStages(b *testing.B) {
	e := newTestEnv(b)
	s := e.register(wire.SessionRequest{Agent: "bench"})
	req := wire.CheckRequest{Op: guard.OpRead, Path: e.work + "/main.go"}
	body, _ := json.Marshal(req)
	ask := func() engine.Ask {
		return engine.Ask{Route: "/v1/check", Declared: checkSources, IDs: engine.IDs{Header: s.ID}, Token: s.Token,
			Caller: engine.FixedLineage(agentLineage, nil), Check: &req}
	}
	call, err := e.srv.Engine().Resolve(ask())
	if err != nil {
		b.Fatal(err)
	}
	pair := socketPair(b)
	stages := []struct {
		name string
		run  func(b *testing.B)
	}{
		{"peer-credentials", func(b *testing.B) { // per connection
			raw, err := pair.SyscallConn()
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := peerCred(raw); err != nil {
					b.Fatal(err)
				}
			}
		}},
		{"lineage", func(b *testing.B) { // per connection: this process up to init
			for b.Loop() {
				engine.PeerLineage(int32(os.Getpid()), 0).Peer()
			}
		}},
		{"decode", func(b *testing.B) {
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, "/v1/check", bytes.NewReader(body))
				if err := decodeStrict(r, newCheckBody()); err != nil {
					b.Fatal(err)
				}
			}
		}},
		{"resolve", func(b *testing.B) {
			for b.Loop() {
				if _, err := e.srv.Engine().Resolve(ask()); err != nil {
					b.Fatal(err)
				}
			}
		}},
		{"evaluate", func(b *testing.B) { // the store's view, the guard, the audit of a use
			for b.Loop() {
				if ans, err := e.srv.Engine().Check(context.Background(), call, req); err != nil || ans.Decision != guard.Allow {
					b.Fatalf("%+v %v", ans, err)
				}
			}
		}},
		{"encode", func(b *testing.B) {
			ans := wire.Answer{Decision: guard.Allow, Reason: "inside the workspace", Path: req.Path}
			for b.Loop() {
				writeJSON(httptest.NewRecorder(), http.StatusOK, ans)
			}
		}},
	}
	for _, st := range stages {
		b.Run(st.name, st.run)
	}
}

// socketPair is one end of a connected Unix socket pair.
func socketPair(b *testing.B) *net.UnixConn {
	ln := listenUnix(b)
	go func() {
		if c, err := ln.Accept(); err == nil {
			b.Cleanup(func() { c.Close() })
		}
	}()
	c, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c.(*net.UnixConn)
}
