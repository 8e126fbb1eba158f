package events

import (
	"context"
	"testing"
	"time"
)

func TestParseAnnouncement(t *testing.T) {
	for _, c := range []struct {
		in   string
		id   string
		seqn int64
	}{
		{"0198c0de-run:17", "0198c0de-run", 17},
		{"bare-id", "bare-id", 0},
		{"id:notanumber", "id:notanumber", 0},
		{"id:-3", "id:-3", 0},
		{"a:b:9", "a:b", 9},
		{"", "", 0},
	} {
		id, seq := parseAnnouncement(c.in)
		if id != c.id || seq != c.seqn {
			t.Errorf("%q: %q %d", c.in, id, seq)
		}
	}
}

func FuzzParseAnnouncement(f *testing.F) {
	f.Add("run:1")
	f.Add(":")
	f.Fuzz(func(t *testing.T, p string) {
		id, seq := parseAnnouncement(p)
		if seq < 0 || len(id) > len(p) {
			t.Fatalf("%q: %q %d", p, id, seq)
		}
	})
}

// A wake-up announcing a sequence number the subscriber has delivered
// already does not make it read; one beyond it, or one without a number,
// does.
func TestWakeupSkipsWhatWasRead(t *testing.T) {
	h := newHub()
	w, cancel := h.subscribe("s")
	defer cancel()
	ctx := context.Background()
	never := make(chan time.Time)
	waits := func(after int64) bool {
		ctx, stop := context.WithTimeout(ctx, 50*time.Millisecond)
		defer stop()
		return waitForNews(ctx, w, never, after)
	}
	h.wake("s", 5)
	if waits(5) {
		t.Fatal("woke for events already delivered")
	}
	h.wake("s", 6)
	if !waits(5) {
		t.Fatal("did not wake for a newer event")
	}
	h.wake("s", 3)
	h.wake("s", 0)
	if !waits(5) {
		t.Fatal("did not wake for an announcement without a number")
	}
	h.wake("other", 0)
	if waits(6) {
		t.Fatal("woke for another stream")
	}
}
