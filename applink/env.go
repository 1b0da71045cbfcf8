package applink

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"time"

	"pathgrant/appdirs"
)

// appEnvKeys are the only variables the app gets from the daemon's
// environment: the display, the session bus, the person's folders and
// locale. Nothing that loads code into it (LD_PRELOAD, GTK_MODULES,
// GIO_EXTRA_MODULES, …) and nothing an agent set: the app is started by
// the daemon, never with the environment of whoever asked for it.
var appEnvKeys = map[string]bool{
	"HOME": true, "USER": true, "LOGNAME": true, "LANG": true, "LANGUAGE": true,
	"DISPLAY": true, "WAYLAND_DISPLAY": true, "XAUTHORITY": true,
	"DBUS_SESSION_BUS_ADDRESS": true, "XDG_RUNTIME_DIR": true,
	"XDG_DATA_HOME": true, "XDG_CONFIG_HOME": true, "XDG_CACHE_HOME": true, "XDG_STATE_HOME": true,
	"XDG_DATA_DIRS": true, "XDG_CONFIG_DIRS": true, "XDG_CURRENT_DESKTOP": true, "XDG_SESSION_TYPE": true,
	"FYNE_SCALE": true, "FYNE_THEME": true,
}

// appPath is the app's PATH: the system's folders only.
const appPath = "/usr/local/bin:/usr/bin:/bin"

// appEnv chooses the app's environment from env (a later entry of a name
// wins): appEnvKeys and the LC_ locale variables, PATH set to appPath,
// and the daemon's socket.
func appEnv(env []string, socket string) []string {
	keep := map[string]string{}
	var order []string
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !(appEnvKeys[k] || strings.HasPrefix(k, "LC_")) {
			continue
		}
		if _, seen := keep[k]; !seen {
			order = append(order, k)
		}
		keep[k] = v
	}
	out := make([]string, 0, len(order)+2)
	for _, k := range order {
		out = append(out, k+"="+keep[k])
	}
	out = appdirs.UILocale(out) // LANGUAGE=en under C.UTF-8: Fyne logs no locale error
	return append(out, "PATH="+appPath, appdirs.SocketEnv+"="+socket)
}

// lookup reads a variable of env.
func lookup(env []string) appdirs.Getenv {
	return func(name string) string {
		v := ""
		for _, kv := range env {
			if k, val, ok := strings.Cut(kv, "="); ok && k == name {
				v = val
			}
		}
		return v
	}
}

// Environ is the daemon's environment and, when systemd runs it as a
// service, the user manager's display variables the daemon's own lacks: a
// daemon the first agent call started before the person logged in to a
// desktop learns the display the desktop gave the manager since. The
// daemon's own always win, and once an app has shown its window its
// display is kept (Link.display): any process of the person's may set the
// manager's variables, so they never move an app to another display.
func Environ() []string {
	env := os.Environ()
	if os.Getenv("INVOCATION_ID") == "" {
		return env
	}
	have := lookup(env)
	for _, kv := range managerDisplay() {
		if k, _, _ := strings.Cut(kv, "="); have(k) == "" {
			env = append(env, kv)
		}
	}
	return env
}

// displayOf is env's display variables, the ones an app's display is.
func displayOf(env []string) []string {
	var out []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); managerDisplayKeys[k] {
			out = append(out, kv)
		}
	}
	return out
}

// withDisplay is env with its display variables replaced by display's.
func withDisplay(env, display []string) []string {
	out := make([]string, 0, len(env)+len(display))
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !managerDisplayKeys[k] {
			out = append(out, kv)
		}
	}
	return append(out, display...)
}

// managerDisplayKeys are what a desktop session imports into the user
// manager (dbus-update-activation-environment --systemd).
var managerDisplayKeys = map[string]bool{
	"DISPLAY": true, "WAYLAND_DISPLAY": true, "XAUTHORITY": true, "DBUS_SESSION_BUS_ADDRESS": true,
	"XDG_CURRENT_DESKTOP": true, "XDG_SESSION_TYPE": true,
}

// managerDisplay reads the user manager's display variables; none when
// systemctl does not answer within a second.
func managerDisplay() []string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "systemctl", "--user", "show-environment").Output()
	if err != nil {
		return nil
	}
	return displayVars(string(out))
}

// displayVars keeps the display variables of systemctl show-environment's
// output, leaving out values it had to quote ($'…'), which no display or
// bus address needs.
func displayVars(out string) []string {
	var vars []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && managerDisplayKeys[k] && !strings.HasPrefix(v, "$'") {
			vars = append(vars, k+"="+v)
		}
	}
	return vars
}
