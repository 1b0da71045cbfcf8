package applink

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/rpc"
	"net/rpc/jsonrpc"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"pathgrant/appdirs"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/wire"
)

// ExitNoDisplay is the app's exit status when the toolkit cannot use the
// display: starting it again would fail the same way, so the daemon does
// not.
const ExitNoDisplay = 3

// How the daemon keeps its app running: a crash is followed by a start
// after restartDelay, doubled for each crash in crashWindow up to
// maxDelayFactor times restartDelay, for good; from maxCrashes on, the
// fallback is told what waits too. An app that links and shows no window
// in readyTimeout, or reads no event in writeTimeout, is stopped as
// crashed; a stopping daemon gives its app stopTimeout.
const (
	restartDelay   = time.Second
	crashWindow    = 2 * time.Minute
	maxCrashes     = 5
	maxDelayFactor = 60
	readyTimeout   = 30 * time.Second
	writeTimeout   = 10 * time.Second
	stopTimeout    = 3 * time.Second
	// outbox is how many events may wait for the app: a full one is an
	// app that stopped reading, stopped so that it starts again afresh.
	outbox = 4096
)

// Config is how the daemon starts its app.
type Config struct {
	// Binary is the app's executable: pathgrant-ui next to the daemon's.
	Binary string
	// Socket is the daemon's socket, named in the app's environment.
	Socket string
	// Environ is what the app's environment is chosen from (appEnv):
	// Environ by default.
	Environ func() []string
	// Fallback is told of the requests no app shows: the headless
	// approver, whose log line carries the codes.
	Fallback engine.Approver
	Log      *slog.Logger
	// RestartDelay is the wait before the first start after a crash,
	// doubled for each crash since; restartDelay by default.
	RestartDelay time.Duration
}

// Link is the daemon's side: it implements engine.Approver and
// engine.Updater, keeps every pending request with its codes so that an
// app started again shows the same inbox, starts the app, starts it again
// when it crashes, and tells the fallback whatever no app shows.
type Link struct {
	cfg Config

	mu       sync.Mutex
	eng      *engine.Engine
	st       *grants.Store
	order    []string         // pending request ids, oldest first
	shown    map[string]shown // by request id
	fellBack map[string]bool  // the requests the fallback was told of
	app      *running         // nil: no app runs
	// quit: the person quit the app (or it crashed too often); it is not
	// started again until Start.
	quit    bool
	crashes []time.Time
	restart *time.Timer
	// display is the display of the first app that showed its window,
	// kept for every app after it (Environ); nil until then, and again
	// once an app cannot use it.
	display     []string
	pausedUntil time.Time
	pauseTimer  *time.Timer
	stopped     bool
}

// shown is a pending request and its codes.
type shown struct {
	req   wire.Request
	codes []wire.ChoiceCode
}

// running is one app process and its two channels.
type running struct {
	cmd      *exec.Cmd
	display  []string // the display variables it was started with
	out      chan Event
	ready    bool // it showed its windows (Ready)
	quitting bool // the person quit it (Quit)
	timer    *time.Timer
	exited   chan struct{}
}

// New returns a link that starts no app until Start.
func New(cfg Config) *Link {
	if cfg.Environ == nil {
		cfg.Environ = Environ
	}
	if cfg.RestartDelay == 0 {
		cfg.RestartDelay = restartDelay
	}
	return &Link{cfg: cfg, shown: map[string]shown{}, fellBack: map[string]bool{}}
}

// Attach gives the link the daemon's engine and store, which the app's
// calls act on. It comes before Start.
func (l *Link) Attach(e *engine.Engine, st *grants.Store) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.eng, l.st = e, st
}

func (l *Link) engine() *engine.Engine {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.eng
}

func (l *Link) store() *grants.Store {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st
}

// Start starts the app unless it runs, and has it show view (none: ""),
// and is engine.Config.Raise: `pathgrant app`, `pathgrant settings` and
// the autostart entry come through it. It says why when the app cannot
// start (no display, no binary).
func (l *Link) Start(view string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return errors.New("the daemon is stopping")
	}
	if l.app != nil {
		if view != "" {
			l.enqueue(l.app, Event{Kind: EventRaise, View: view})
		}
		return nil
	}
	if l.restart != nil {
		l.restart.Stop()
	}
	l.quit, l.crashes = false, nil
	return l.startLocked(view)
}

// startLocked starts an app process: the events of every pending
// request go first, so it shows the inbox as it is.
func (l *Link) startLocked(view string) error {
	env := appEnv(l.cfg.Environ(), l.cfg.Socket)
	if l.display != nil {
		env = withDisplay(env, l.display)
	}
	if why := appdirs.DisplayMissing(lookup(env)); why != "" {
		return fmt.Errorf("%w: no display for it (%s)", engine.ErrNoWindow, why)
	}
	run, err := l.spawn(env)
	if err != nil {
		return err
	}
	l.app = run
	l.enqueue(run, Event{Kind: EventState, State: l.stateLocked()})
	for _, id := range l.order {
		s := l.shown[id]
		l.enqueue(run, Event{Kind: EventShow, Request: s.req, Codes: s.codes})
	}
	if view != "" {
		l.enqueue(run, Event{Kind: EventRaise, View: view})
	}
	run.timer = time.AfterFunc(readyTimeout, func() { l.notReady(run) })
	l.cfg.Log.Info("the app started", "pid", run.cmd.Process.Pid)
	return nil
}

// spawn starts the app with the bootstrap socket as descriptor 3; the
// link is made once the app sends its ends (connect).
func (l *Link) spawn(env []string) (*running, error) {
	if l.cfg.Binary == "" {
		return nil, fmt.Errorf("%w: %s is not installed beside the daemon", engine.ErrNoWindow, "pathgrant-ui")
	}
	boot, appBoot, err := bootPair()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(l.cfg.Binary, "app", "--link")
	cmd.Env, cmd.Stdout, cmd.Stderr = env, os.Stderr, os.Stderr
	cmd.ExtraFiles = []*os.File{appBoot}
	err = cmd.Start()
	appBoot.Close()
	if err != nil {
		boot.Close()
		return nil, fmt.Errorf("start the app %s: %w", l.cfg.Binary, err)
	}
	run := &running{cmd: cmd, display: displayOf(env), out: make(chan Event, outbox), exited: make(chan struct{})}
	go l.connect(run, boot)
	go l.wait(run)
	return run, nil
}

// connect takes the link's ends from the app it started, then sends its
// events and answers its calls. An app that sends no link in
// readyTimeout is stopped as crashed.
func (l *Link) connect(run *running, boot *os.File) {
	events, calls, err := awaitHello(boot, run.cmd.Process.Pid, readyTimeout)
	boot.Close()
	if err != nil {
		l.cfg.Log.Warn("the app made no link: stopping it", "pid", run.cmd.Process.Pid, "err", err)
		run.cmd.Process.Kill()
		return
	}
	go l.serve(run, calls)
	l.send(run, events)
}

// enqueue hands run an event without ever blocking the daemon: an app
// whose outbox is full stopped reading, and is stopped (it starts again,
// shown everything afresh).
func (l *Link) enqueue(run *running, ev Event) {
	select {
	case run.out <- ev:
	default:
		l.cfg.Log.Warn("the app reads no events: stopping it", "pid", run.cmd.Process.Pid)
		run.cmd.Process.Kill()
	}
}

// send writes run's events in order; an app that takes more than
// writeTimeout to read one is stopped.
func (l *Link) send(run *running, conn net.Conn) {
	defer conn.Close()
	enc := json.NewEncoder(conn)
	for ev := range run.out {
		conn.SetWriteDeadline(time.Now().Add(writeTimeout))
		if err := enc.Encode(ev); err != nil {
			l.cfg.Log.Warn("the app reads no events: stopping it", "pid", run.cmd.Process.Pid, "err", err)
			run.cmd.Process.Kill()
			for range run.out { // until wait closes it
			}
			return
		}
	}
}

// serve answers run's calls until it closes its end.
func (l *Link) serve(run *running, conn net.Conn) {
	srv := rpc.NewServer()
	if err := srv.RegisterName("Daemon", &service{link: l, run: run}); err != nil {
		l.cfg.Log.Error("the app's calls", "err", err)
		conn.Close()
		return
	}
	srv.ServeCodec(jsonrpc.NewServerCodec(conn))
}

// wait reaps run and decides what follows its exit.
func (l *Link) wait(run *running) {
	err := run.cmd.Wait()
	l.mu.Lock()
	l.exited(run, err)
	l.mu.Unlock()
	close(run.exited)
}

// exited: the person quit the app (it stays stopped), the display is
// unusable (likewise), or it crashed (started again after a delay, up to
// maxCrashes in crashWindow). Whatever it showed that no app shows now
// goes to the fallback when no app will come back soon.
func (l *Link) exited(run *running, err error) {
	if l.app != run {
		return
	}
	l.app = nil
	close(run.out)
	run.timer.Stop()
	switch {
	case l.stopped:
	case run.quitting && err == nil:
		l.quit = true
		l.cfg.Log.Info("the app was quit: pathgrant keeps checking agents' calls; requests are logged with their codes and listed by 'pathgrant pending'; 'pathgrant app' shows the window again",
			"waiting", len(l.order))
		l.fallBackAll()
	case exitStatus(err) == ExitNoDisplay:
		l.quit, l.display = true, nil
		l.cfg.Log.Warn("the app cannot use the display: "+appdirs.HeadlessHint, "err", err)
		l.fallBackAll()
	default:
		l.crashed(err)
	}
}

// crashed starts the app again after a delay that doubles with each
// recent crash, up to maxDelay: it never gives up, so no process that
// kills the app can switch it off for good. From maxCrashes recent
// crashes on, what waits goes to the fallback too (its codes on the log),
// since no app may show it soon.
func (l *Link) crashed(err error) {
	now := time.Now()
	l.crashes = slices.DeleteFunc(append(l.crashes, now), func(t time.Time) bool { return now.Sub(t) > crashWindow })
	n := len(l.crashes)
	delay := min(l.cfg.RestartDelay<<min(n-1, 16), l.cfg.RestartDelay*maxDelayFactor)
	if n >= maxCrashes {
		l.cfg.Log.Error("the app keeps stopping: it is started again, and meanwhile requests are logged with their codes",
			"crashes", n, "within", crashWindow, "in", delay, "err", err)
		l.fallBackAll()
	} else {
		l.cfg.Log.Warn("the app stopped: starting it again; nothing waiting is lost", "err", err, "in", delay, "waiting", len(l.order))
	}
	l.restart = time.AfterFunc(delay, l.restartNow)
}

// restartNow starts the app after a crash, unless something else did or
// it should not.
func (l *Link) restartNow() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped || l.quit || l.app != nil {
		return
	}
	if err := l.startLocked(""); err != nil {
		l.quit = true
		l.cfg.Log.Warn("the app cannot start again: pathgrant runs headless", "err", err)
		l.fallBackAll()
	}
}

// exitStatus is err's exit code; -1 when err is none or a signal.
func exitStatus(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// fallBackAll tells the fallback of every pending request it was not told
// of: no app shows them any more.
func (l *Link) fallBackAll() {
	for _, id := range l.order {
		if !l.fellBack[id] {
			s := l.shown[id]
			l.fellBack[id] = true
			l.cfg.Fallback.Show(s.req, s.codes)
		}
	}
}

// ready is run having shown its windows.
func (l *Link) ready(run *running) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.app == run {
		run.ready = true
		run.timer.Stop()
		if l.display == nil {
			l.display = run.display
		}
	}
}

// notReady stops an app that showed no window in readyTimeout.
func (l *Link) notReady(run *running) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.app == run && !run.ready {
		l.cfg.Log.Warn("the app showed no window in time: stopping it", "after", readyTimeout)
		run.cmd.Process.Kill()
	}
}

// quitting is the person quitting run: its exit is not a crash.
func (l *Link) quitting(run *running) {
	l.mu.Lock()
	defer l.mu.Unlock()
	run.quitting = true
}

// Show implements engine.Approver: kept, sent to the app, and told to the
// fallback while no app shows windows.
func (l *Link) Show(r wire.Request, codes []wire.ChoiceCode) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.shown[r.ID]; !ok {
		l.order = append(l.order, r.ID)
	}
	l.shown[r.ID] = shown{req: r, codes: codes}
	if l.app != nil {
		l.enqueue(l.app, Event{Kind: EventShow, Request: r, Codes: codes})
	}
	if l.app == nil || !l.app.ready {
		l.fellBack[r.ID] = true
		l.cfg.Fallback.Show(r, codes)
	}
}

// Update implements engine.Updater.
func (l *Link) Update(r wire.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.shown[r.ID]; ok {
		s.req.Waiting, s.req.WaitUntil, s.req.Count = r.Waiting, r.WaitUntil, r.Count
		l.shown[r.ID] = s
	}
	if l.app != nil {
		l.enqueue(l.app, Event{Kind: EventUpdate, Request: r})
	}
	if u, ok := l.cfg.Fallback.(engine.Updater); ok && l.fellBack[r.ID] {
		u.Update(r)
	}
}

// Withdraw implements engine.Approver.
func (l *Link) Withdraw(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := slices.Index(l.order, id); i >= 0 {
		l.order = slices.Delete(l.order, i, i+1)
	}
	delete(l.shown, id)
	if l.app != nil {
		l.enqueue(l.app, Event{Kind: EventWithdraw, ID: id})
	}
	if l.fellBack[id] {
		delete(l.fellBack, id)
		l.cfg.Fallback.Withdraw(id)
	}
}

// state is the daemon's state for the tray.
func (l *Link) state() State {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stateLocked()
}

func (l *Link) stateLocked() State {
	st := State{PausedUntil: l.pausedUntil}
	if l.eng != nil {
		st.Confinement = string(l.eng.Confinement())
	}
	return st
}

// pause pauses prompts for d (0: resumes). The daemon ends the pause
// itself: an app that crashed meanwhile leaves nothing paused for good.
func (l *Link) pause(d time.Duration) State {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pauseTimer != nil {
		l.pauseTimer.Stop()
	}
	l.pausedUntil = time.Time{}
	if d > 0 {
		l.pausedUntil = time.Now().Add(d)
		until := l.pausedUntil
		l.pauseTimer = time.AfterFunc(d, func() { l.resume(until) })
	}
	l.eng.SetPaused(d > 0)
	st := l.stateLocked()
	if l.app != nil {
		l.enqueue(l.app, Event{Kind: EventState, State: st})
	}
	return st
}

// resume ends the pause that was to end at until, unless another replaced it.
func (l *Link) resume(until time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.pausedUntil.Equal(until) {
		return
	}
	l.pausedUntil = time.Time{}
	l.eng.SetPaused(false)
	if l.app != nil {
		l.enqueue(l.app, Event{Kind: EventState, State: l.stateLocked()})
	}
}

// Stop asks the app to exit and waits for it, killing it after
// stopTimeout; no app starts after it.
func (l *Link) Stop() {
	l.mu.Lock()
	l.stopped = true
	for _, t := range []*time.Timer{l.restart, l.pauseTimer} {
		if t != nil {
			t.Stop()
		}
	}
	run := l.app
	if run != nil {
		l.enqueue(run, Event{Kind: EventQuit})
	}
	l.mu.Unlock()
	if run == nil {
		return
	}
	select {
	case <-run.exited:
	case <-time.After(stopTimeout):
		run.cmd.Process.Kill()
		<-run.exited
	}
}

// Running is the app's pid, 0 when none runs.
func (l *Link) Running() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.app == nil {
		return 0
	}
	return l.app.cmd.Process.Pid
}
