package grants

import (
	"errors"
	"sync"
	"testing"

	"pathgrant/guard"
)

func TestOnceUsedExactlyOnceUnderConcurrency(t *testing.T) {
	const users = 50
	e := newEnv(t, nil)
	e.session("s1")
	p := e.file("a.txt")
	g := e.put(ScopeOnce, p, guard.KindFile)
	v := e.s.View("s1")
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, users)
	for i := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if v.Lookup(guard.OpRead, p, false) == "" {
				errs[i] = errors.New("lookup found nothing")
				return
			}
			errs[i] = v.Use(g.ID)
		}()
	}
	close(start)
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ErrEnded):
		case err.Error() == "lookup found nothing": // lost the race before Use
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d of %d concurrent users succeeded, want exactly 1", ok, users)
	}
	got := e.get(g.ID)
	if got.UseCount != 1 || got.Ended != EndConsumed {
		t.Errorf("after the race: use count %d, ended %q; want 1, consumed", got.UseCount, got.Ended)
	}
	if n := e.count(KindUse); n != 1 {
		t.Errorf("%d use records, want 1", n)
	}
}
