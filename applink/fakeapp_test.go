package applink

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"pathgrant/wire"
)

// The test binary is the app the tests' links start: run as `app
// --link`, as the daemon runs pathgrant-ui, it runs fakeApp instead of
// the tests. What it is told comes through HOME, one of the few
// variables the app gets: it logs to $HOME/app.log, and quits at once
// when $HOME/quit exists.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "app" && os.Args[2] == "--link" {
		os.Exit(fakeApp())
	}
	os.Exit(m.Run())
}

// logged is one line of the fake app's log: an event, or its
// environment when it started.
type logged struct {
	Pid     int      `json:"pid"`
	Event   Event    `json:"event,omitzero"`
	Environ []string `json:"environ,omitempty"`
}

// fakeApp is an app that logs its environment and every event it gets
// to $HOME/app.log; when $HOME/quit exists it quits as the person does
// (Quit, then exit 0) at its first event.
func fakeApp() int {
	home := os.Getenv("HOME")
	_, err := os.Stat(filepath.Join(home, "quit"))
	quit := err == nil
	f, err := os.OpenFile(filepath.Join(home, "app.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	app, err := Inherited()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	h := &fakeHandler{enc: json.NewEncoder(f), app: app, quit: quit}
	h.write(logged{Pid: os.Getpid(), Environ: os.Environ()})
	if err := app.Ready(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := app.Run(h); err != nil {
		return 1
	}
	return 0
}

type fakeHandler struct {
	mu   sync.Mutex
	enc  *json.Encoder
	app  *App
	quit bool
}

func (h *fakeHandler) write(l logged) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.enc.Encode(l)
}

func (h *fakeHandler) event(ev Event) {
	h.write(logged{Pid: os.Getpid(), Event: ev})
	if h.quit {
		h.app.Quit()
		os.Exit(0)
	}
}

func (h *fakeHandler) Show(r wire.Request, codes []wire.ChoiceCode) {
	h.event(Event{Kind: EventShow, Request: r, Codes: codes})
}
func (h *fakeHandler) Update(r wire.Request) { h.event(Event{Kind: EventUpdate, Request: r}) }
func (h *fakeHandler) Withdraw(id string)    { h.event(Event{Kind: EventWithdraw, ID: id}) }
func (h *fakeHandler) Raise(view string)     { h.event(Event{Kind: EventRaise, View: view}) }
func (h *fakeHandler) State(st State)        { h.event(Event{Kind: EventState, State: st}) }

// readLog is the fake apps' log so far.
func readLog(t *testing.T, path string) []logged {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []logged
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var l logged
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, l)
	}
	return out
}
