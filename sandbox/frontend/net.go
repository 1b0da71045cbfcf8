package frontend

import (
	"context"
	"os"

	"pathgrant/sandbox/launch"
	"pathgrant/wire"
)

// netEnv is how p's command reaches the network (launch.ProxyEnv): through
// pathgrant's proxy on its own loopback when it has a namespace of its
// own, git's ssh through the connect helper of its inner step's binary.
func netEnv(p wire.Prepared) launch.Net {
	if p.Net == nil {
		return launch.Net{}
	}
	return launch.Net{Port: p.Net.Port, Connect: launch.ConnectHelper(p.Inner)}
}

// netFiles puts the way out of the command's network namespace at
// launch.NetFD of files, after the job and the hold socket (a gap where
// there is none: closed in the child).
func (c Child) netFiles(files []*os.File) []*os.File {
	if c.Net == nil || c.Prepared.Net == nil || len(files) > launch.NetFD {
		return files
	}
	for len(files) < launch.NetFD {
		files = append(files, nil)
	}
	return append(files, c.Net)
}

// OpenNet hands the daemon on socket the way out of p's network
// namespace, presenting its net ticket, and returns the connection to
// give the sandbox (Child.Net); nil when p's command has none.
func OpenNet(socket string, p wire.Prepared, argv []string) (*os.File, error) {
	if p.Net == nil || p.Net.Ticket == "" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	c := wire.Client{Socket: socket}
	return c.Take(ctx, wire.PathNet, struct{}{}, wire.Header{Name: wire.HeaderCapability, Value: p.Net.Ticket},
		wire.Header{Name: wire.HeaderCommandHash, Value: launch.CommandHash(launch.CommandText(argv))})
}
