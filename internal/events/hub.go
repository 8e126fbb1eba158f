package events

import "sync"

// hub wakes this process's subscribers of a stream. A wake-up carries no
// events: the subscriber reads what is new from the store, so wake-ups can
// be coalesced and a full channel simply means one is already pending.
//
// A wake-up may say up to which sequence number the stream is known to be
// committed (PostgreSQL announcements carry it). A subscriber that has
// already delivered that far skips the read: on PostgreSQL every commit
// wakes a local subscriber twice, once in-process and once by the
// announcement, and the second read would find nothing.
type hub struct {
	mu   sync.Mutex
	subs map[string]map[*wakeup]struct{}
}

// wakeup is one subscriber's pending wake-up.
type wakeup struct {
	c  chan struct{}
	mu sync.Mutex
	// seq is the highest sequence number announced since the last take;
	// unknown says a wake-up without one came, so the subscriber must read.
	seq     int64
	unknown bool
}

// take returns what the wake-ups since the last take announced.
func (w *wakeup) take() (seq int64, unknown bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	seq, unknown = w.seq, w.unknown
	w.seq, w.unknown = 0, false
	return seq, unknown
}

func newHub() *hub { return &hub{subs: map[string]map[*wakeup]struct{}{}} }

func (h *hub) subscribe(streamID string) (*wakeup, func()) {
	w := &wakeup{c: make(chan struct{}, 1)}
	h.mu.Lock()
	if h.subs[streamID] == nil {
		h.subs[streamID] = map[*wakeup]struct{}{}
	}
	h.subs[streamID][w] = struct{}{}
	h.mu.Unlock()
	return w, func() {
		h.mu.Lock()
		delete(h.subs[streamID], w)
		if len(h.subs[streamID]) == 0 {
			delete(h.subs, streamID)
		}
		h.mu.Unlock()
	}
}

// wake wakes the stream's subscribers; seq > 0 says the stream is
// committed up to it, 0 that it is not known how far.
func (h *hub) wake(streamID string, seq int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for w := range h.subs[streamID] {
		w.mu.Lock()
		if seq <= 0 {
			w.unknown = true
		} else if seq > w.seq {
			w.seq = seq
		}
		w.mu.Unlock()
		select {
		case w.c <- struct{}{}:
		default:
		}
	}
}
