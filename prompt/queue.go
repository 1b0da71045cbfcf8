package prompt

import (
	"slices"

	"pathgrant/wire"
)

// The inbox's queue: pending request ids in the order they came, and the
// requests and codes by id. Every function here takes mu itself.

// Count returns the number of pending requests in the inbox.
func (p *Prompter) Count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.order)
}

// Pending lists the inbox's request ids, oldest first.
func (p *Prompter) Pending() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.order)
}

func (p *Prompter) request(id string) (wire.Request, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.pending[id]
	return r, ok
}

// position is where id is in the inbox, and its length.
func (p *Prompter) position(id string) (int, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Index(p.order, id), len(p.order)
}

// at is the id i places from id in the inbox, "" when there is none.
func (p *Prompter) at(id string, step int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.Index(p.order, id) + step
	if i < 0 || i >= len(p.order) {
		return ""
	}
	return p.order[i]
}

// oldest is the first request in the inbox, "" when it is empty.
func (p *Prompter) oldest() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.order) == 0 {
		return ""
	}
	return p.order[0]
}

// sessionIDs are the pending requests of session, oldest first.
func (p *Prompter) sessionIDs(session string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ids []string
	for _, id := range p.order {
		if p.pending[id].Session == session {
			ids = append(ids, id)
		}
	}
	return ids
}

// forget drops id from the inbox without a decision: an ended request
// the person closed. It reports whether id was there.
func (p *Prompter) forget(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.Index(p.order, id)
	if i < 0 {
		return false
	}
	p.order = slices.Delete(p.order, i, i+1)
	delete(p.pending, id)
	delete(p.codes, id)
	return true
}
