package events

import "sync"

// hub wakes this process's subscribers of a stream. A wake-up carries no
// data: the subscriber reads what is new from the store, so wake-ups can be
// coalesced and a full channel simply means one is already pending.
type hub struct {
	mu   sync.Mutex
	subs map[string]map[chan struct{}]struct{}
}

func newHub() *hub { return &hub{subs: map[string]map[chan struct{}]struct{}{}} }

func (h *hub) subscribe(streamID string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	if h.subs[streamID] == nil {
		h.subs[streamID] = map[chan struct{}]struct{}{}
	}
	h.subs[streamID][ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs[streamID], ch)
		if len(h.subs[streamID]) == 0 {
			delete(h.subs, streamID)
		}
		h.mu.Unlock()
	}
}

func (h *hub) wake(streamID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs[streamID] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
