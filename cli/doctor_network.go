package cli

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"pathgrant/devicepolicy"
	"pathgrant/sandbox"
)

// The X server's TCP ports: display :N listens on 6000+N, and X11
// forwarding over ssh takes displays from :10 up.
const (
	xFirstPort = 6000
	xLastPort  = 6063
)

// networkChecks say what confined commands reach over the network (the
// device policy's [network] mode, and whether this machine can give each
// command a network namespace at all), then, on Linux, whether the
// display is reachable over TCP: a confined command in its own namespace
// cannot reach it, but every process outside pathgrant's view can, and
// pathgrant's window is on it.
func networkChecks(env doctorEnv) []doctorCheck {
	return networkChecksAt(env, "/")
}

// networkChecksAt is networkChecks reading /proc under root, so a test
// gives it a folder of fixture files.
func networkChecksAt(env doctorEnv, root string) []doctorCheck {
	out := []doctorCheck{networkModeCheck(env, env.Confinement())}
	if env.GOOS == "darwin" {
		return out // pathgrant's windows are not X clients there
	}
	out = append(out, displayCheck(env.Getenv("DISPLAY")))
	if c, ok := xTCPCheck(root); ok {
		out = append(out, c)
	}
	return out
}

// networkModeCheck is the line for the mode in force: a namespace of
// each command's own whose one way out is the daemon's proxy; or a gap,
// because the file says host or the machine cannot make the namespace.
func networkModeCheck(env doctorEnv, c sandbox.Confinement) doctorCheck {
	d := doctorCheck{Name: "network"}
	p, file, err := deviceFileOf(env)
	mode := p.Network.Mode
	switch {
	case err != nil:
		d.Status, d.Detail = doctorInfo, "unknown: the device policy does not load"
	case !p.Confinement || c.Level == sandbox.LevelNone:
		d.Status, d.Detail = doctorInfo, "commands are not confined: they share this machine's network (see confinement above)"
	case mode == devicepolicy.NetHost:
		d.Status = doctorWarn
		d.Detail = `mode = "host": confined commands share this machine's network: every service listening on it (an X server on TCP, Docker's API, a database) is one connect away`
		d.Fix = `set mode = "allow-public" (or "ask", "off") under [network] in ` + file
	case c.Level == sandbox.LevelLandlock:
		d.Status = doctorWarn
		d.Detail = fmt.Sprintf("no network namespace at the Landlock-only level: confined commands share this machine's network, mode = %q is not enforced, and nothing holds instead: every address is one connect away, this machine's own services (an X server on TCP, Docker's API, a database) included; only Unix sockets stay refused", mode)
		d.Fix = "install bubblewrap and allow user namespaces (see above) for the full level"
	case c.Level == sandbox.LevelSeatbelt:
		d.Status = doctorInfo
		d.Detail = fmt.Sprintf("no network namespace on macOS: the Seatbelt profile lets confined commands connect to any address, this machine's own services included; mode = %q is not enforced", mode)
	default:
		d.Status, d.Detail = doctorOK, "each confined command has a network namespace of its own; "+namespaceWayOut(p.Network)
	}
	return d
}

// namespaceWayOut says what the proxy lets a namespaced command reach in
// mode, and the private ranges the file opens (they count in
// allow-public only: ask asks every destination no pattern allows).
func namespaceWayOut(n devicepolicy.Network) string {
	switch n.Mode {
	case devicepolicy.NetOff:
		return "it has no way out (mode off): nothing is reached over the network"
	case devicepolicy.NetAsk:
		return "it goes out only through pathgrant's proxy (mode ask: every new destination is a request)"
	}
	s := "it goes out only through pathgrant's proxy (mode allow-public: public destinations are reached, private addresses asked, this machine's own refused)"
	if len(n.AllowRanges) > 0 {
		s += "; private addresses reached without asking: " + strings.Join(n.AllowRanges, ", ")
	}
	return s
}

// displayCheck warns when DISPLAY names a host: the X server is then
// reached over TCP (ssh X forwarding, a remote or TCP display), where
// whoever the server lets in can read and type into pathgrant's window.
func displayCheck(display string) doctorCheck {
	d := doctorCheck{Name: "display"}
	switch host, tcp := displayHost(display); {
	case display == "":
		d.Status, d.Detail = doctorOK, "DISPLAY is unset"
	case !tcp:
		d.Status, d.Detail = doctorOK, "DISPLAY="+display+" is this machine's own socket"
	default:
		d.Status = doctorWarn
		d.Detail = fmt.Sprintf("DISPLAY=%s names a host (%s): pathgrant's window is reached over TCP, where any process the X server lets in (xhost, its cookie) can type into it, a command outside pathgrant's view included", display, host)
		d.Fix = "run pathgrant on a local display (DISPLAY=:0), or decide from a terminal with 'pathgrant pending'"
	}
	return d
}

// displayHost splits DISPLAY ([protocol/]host:display[.screen]) and says
// whether it is reached over TCP: a host other than empty or "unix", or
// the tcp/inet protocols. A host that is a path (a socket's, as macOS's
// launchd gives) is local.
func displayHost(display string) (host string, tcp bool) {
	i := strings.LastIndex(display, ":")
	if i < 0 {
		return "", false
	}
	host = strings.TrimSuffix(display[:i], ":") // DECnet's host::n
	if strings.HasPrefix(host, "/") {
		return host, false
	}
	name := host
	if proto, h, ok := strings.Cut(host, "/"); ok {
		switch proto {
		case "tcp", "inet", "inet6":
			return host, true
		case "unix", "local":
			return host, false
		}
		name = h
	}
	return host, name != "" && name != "unix"
}

// xTCPCheck warns when an X server listens on TCP on this machine; ok is
// false when none does (nothing to say) and the tables were read.
func xTCPCheck(root string) (doctorCheck, bool) {
	d := doctorCheck{Name: "X over TCP"}
	ls, err := xTCPListeners(root)
	switch {
	case err != nil:
		d.Status, d.Detail = doctorInfo, "unknown: "+oneLine(err.Error())
	case len(ls) == 0:
		return d, false
	default:
		d.Status = doctorWarn
		d.Detail = "an X server listens on TCP (" + strings.Join(ls, ", ") + "): access granted with xhost, or the server's -listen tcp, can let a command outside pathgrant's view type into pathgrant's window"
		d.Fix = "start the X server with -nolisten tcp (your display manager's server arguments) and keep xhost's list empty (xhost -)"
	}
	return d, true
}

// xTCPListeners reads root/proc/net/tcp and tcp6 for sockets listening
// on an X port, as "port 6000 on 0.0.0.0". A table that does not exist
// (no IPv6) holds none.
func xTCPListeners(root string) ([]string, error) {
	var out []string
	for _, table := range []string{"proc/net/tcp", "proc/net/tcp6"} {
		data, err := os.ReadFile(filepath.Join(root, table))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the listening sockets: %w", err)
		}
		out = append(out, xListenersIn(string(data))...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// xListenersIn parses one /proc/net/tcp table: after its heading, each
// line is "sl local_address rem_address st …", addresses in hex as the
// kernel holds them, st 0A for LISTEN.
func xListenersIn(table string) []string {
	var out []string
	lines := strings.Split(table, "\n")
	for _, l := range lines[min(1, len(lines)):] {
		f := strings.Fields(l)
		if len(f) < 4 || f[3] != "0A" {
			continue
		}
		addr, port, ok := procAddr(f[1])
		if ok && port >= xFirstPort && port <= xLastPort {
			out = append(out, fmt.Sprintf("port %d on %s", port, addr))
		}
	}
	return out
}

// procAddr decodes a /proc/net/tcp address, "0100007F:1770": the IP in
// the kernel's byte order (each 32-bit word in host order, little-endian
// on every machine pathgrant runs on), the port in hex.
func procAddr(s string) (netip.Addr, int, bool) {
	ipHex, portHex, ok := strings.Cut(s, ":")
	port, err := strconv.ParseUint(portHex, 16, 16)
	raw, herr := hex.DecodeString(ipHex)
	if !ok || err != nil || herr != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.Addr{}, 0, false
	}
	for w := 0; w < len(raw); w += 4 {
		slices.Reverse(raw[w : w+4])
	}
	addr, _ := netip.AddrFromSlice(raw)
	return addr.Unmap(), int(port), true
}
