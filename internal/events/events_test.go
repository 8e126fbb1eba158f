package events_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/events"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func openBus(t *testing.T, url string) *events.Bus {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := events.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

func TestOrderingAndScope(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		b := openBus(t, storetest.URL(t, d))
		// Many writers on one stream: sequence numbers stay dense and unique.
		var wg sync.WaitGroup
		for w := 0; w < 10; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 20; i++ {
					if _, err := b.Append(ctx, "acct-a", "run-1", events.New{Type: "tick", Data: map[string]int{"w": w, "i": i}}, events.New{Type: "tock", Data: nil}); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		evs, err := b.Read(ctx, "acct-a", "run-1", 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 400 {
			t.Fatalf("%d events", len(evs))
		}
		for i, e := range evs {
			if e.Seq != int64(i+1) {
				t.Fatalf("event %d has seq %d", i, e.Seq)
			}
			// A batch's events stay together and in order.
			if e.Type == "tock" && evs[i-1].Type != "tick" {
				t.Fatalf("batch split at seq %d", e.Seq)
			}
		}
		if last, _ := b.LastSeq(ctx, "acct-a", "run-1"); last != 400 {
			t.Errorf("last seq %d", last)
		}
		// Another account reads nothing of it.
		if evs, _ := b.Read(ctx, "acct-b", "run-1", 0, 10); len(evs) != 0 {
			t.Errorf("another account read %d events", len(evs))
		}
		if last, _ := b.LastSeq(ctx, "acct-b", "run-1"); last != 0 {
			t.Errorf("another account sees last seq %d", last)
		}
	})
}

// TestAcrossReplicas appends on one bus and subscribes on another over the
// same database, as two replicas would: every event arrives in order, and a
// resumed subscription continues exactly where the first left off.
func TestAcrossReplicas(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		url := storetest.URL(t, d)
		writer, reader := openBus(t, url), openBus(t, url)
		reader.PollEvery = 100 * time.Millisecond // SQLite has no cross-process announcements

		const total = 60
		ch, errc := reader.Subscribe(ctx, "acct", "run-x", 0, func(e events.Event) bool { return e.Type == "done" })
		// The last event can reach the reader (through NOTIFY) before its
		// Append returns to the writer: wait for the writer before ctx ends.
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			for i := 1; i <= total; i++ {
				typ := "step"
				if i == total {
					typ = "done"
				}
				if _, err := writer.Append(ctx, "acct", "run-x", events.New{Type: typ, Data: i}); err != nil {
					t.Error(err)
					return
				}
				if i%10 == 0 {
					time.Sleep(20 * time.Millisecond)
				}
			}
		}()
		var got []int64
		for e := range ch {
			got = append(got, e.Seq)
			if string(e.Data) != fmt.Sprint(e.Seq) {
				t.Fatalf("seq %d carries %s", e.Seq, e.Data)
			}
		}
		<-wrote
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		if len(got) != total {
			t.Fatalf("received %d of %d", len(got), total)
		}
		for i, s := range got {
			if s != int64(i+1) {
				t.Fatalf("gap or duplicate at %d: %v", i, got)
			}
		}

		// Resume after seq 25, as a reconnect with Last-Event-ID: 25 would.
		ch, _ = reader.Subscribe(ctx, "acct", "run-x", 25, func(e events.Event) bool { return e.Type == "done" })
		n := int64(25)
		for e := range ch {
			n++
			if e.Seq != n {
				t.Fatalf("resume: got %d want %d", e.Seq, n)
			}
		}
		if n != total {
			t.Fatalf("resume ended at %d", n)
		}

		// A subscriber whose context ends is released.
		sctx, scancel := context.WithCancel(ctx)
		ch, _ = reader.Subscribe(sctx, "acct", "run-quiet", 0, nil)
		scancel()
		select {
		case _, open := <-ch:
			if open {
				t.Error("event on a quiet stream")
			}
		case <-time.After(5 * time.Second):
			t.Error("subscription not closed after cancel")
		}
	})
}

// TestDeliveryLatency checks that announcements, not polling, carry events:
// with polling slowed to a minute, events still arrive at once.
func TestDeliveryLatency(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		url := storetest.URL(t, d)
		writer := openBus(t, url)
		reader := writer
		if d == store.Postgres {
			reader = openBus(t, url) // a different replica: NOTIFY must carry it
		}
		reader.PollEvery = time.Minute
		ch, _ := reader.Subscribe(ctx, "acct", "run-l", 0, nil)
		time.Sleep(50 * time.Millisecond) // let the subscription settle into waiting
		for i := 0; i < 5; i++ {
			start := time.Now()
			if _, err := writer.Append(ctx, "acct", "run-l", events.New{Type: "step", Data: i}); err != nil {
				t.Fatal(err)
			}
			select {
			case <-ch:
				if el := time.Since(start); el > time.Second {
					t.Errorf("event %d took %v", i, el)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("event %d not delivered without polling", i)
			}
		}
	})
}
