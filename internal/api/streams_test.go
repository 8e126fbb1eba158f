package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// parkedDef parks its run on a review, so a stream of it stays open.
const parkedDef = `{"child_steps":[{"id":"hitl","step_type":"human_in_the_loop","instructions":"ok?","child_steps":[
	{"id":"show","step_type":"display_result","template":"approved {{input}}"}]}]}`

// openStream posts to the stream endpoint with a context the test can
// cancel to hang up.
func openStream(t *testing.T, s *testserver.Server, agent, key, lastEventID string) (*http.Response, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	body := `{"input":"x"}`
	if lastEventID != "" {
		body = `{}`
	}
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/agents/"+agent+"/runs/stream", strings.NewReader(body))
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	return resp, cancel
}

func wantRefused(t *testing.T, resp *http.Response, what string) {
	t.Helper()
	defer resp.Body.Close()
	var body struct {
		Detail string `json:"detail"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(body.Detail, what) {
		t.Fatalf("over the %s cap: %d Retry-After %q detail %q", what, resp.StatusCode, resp.Header.Get("Retry-After"), body.Detail)
	}
}

func waitOpen(t *testing.T, s *testserver.Server, credential, account string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, n := s.S.API.OpenStreams(credential, account)
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("account holds %d streams, want %d", n, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStreamCaps opens streams over real HTTP up to the caps: the next one
// is a 429 with Retry-After that starts nothing, the account cap holds
// across its keys, another account is unaffected, and a slot comes back
// when a stream ends — including streams refused after they took one.
func TestStreamCaps(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.MaxStreamsPerKey, c.MaxStreamsPerAccount = 3, 5 })
		agent := makeAgent(t, s, s.AccountID, parkedDef)

		first, _ := openStream(t, s, agent, s.Key, "")
		if first.StatusCode != http.StatusOK {
			t.Fatalf("first stream: %d", first.StatusCode)
		}
		init := readSSE(t, first, func(e sseEvent) bool { return e.event == "init" })
		if len(init) == 0 {
			t.Fatal("no init event")
		}
		runID, _, _ := strings.Cut(init[len(init)-1].id, ":")
		var hung []context.CancelFunc
		for i := 0; i < 2; i++ {
			r, cancel := openStream(t, s, agent, s.Key, runID+":0")
			if r.StatusCode != http.StatusOK {
				t.Fatalf("stream %d: %d", i+2, r.StatusCode)
			}
			hung = append(hung, cancel)
		}
		// The key is at its cap: a resume and a start are both refused, and
		// the refused start starts no run.
		r, _ := openStream(t, s, agent, s.Key, runID+":0")
		wantRefused(t, r, "credential")
		r, _ = openStream(t, s, agent, s.Key, "")
		wantRefused(t, r, "credential")
		if _, n, _ := runs.NewRepo(s.DB, nil).RunsOfAgent(context.Background(), s.AccountID, agent, "", 10, 0); n != 1 {
			t.Errorf("%d runs after a refused stream; want 1", n)
		}

		// A second key of the account has its own credential cap, but the
		// account's cap (5) is reached after two more.
		second := s.IssueKey(t, s.AccountID, s.UserID, store.RoleOwner)
		for i := 0; i < 2; i++ {
			if r, _ := openStream(t, s, agent, second, runID+":0"); r.StatusCode != http.StatusOK {
				t.Fatalf("second key stream %d: %d", i+1, r.StatusCode)
			}
		}
		r, _ = openStream(t, s, agent, second, runID+":0")
		wantRefused(t, r, "account")

		// Another account is not affected.
		other := s.NewTenant(t, "other")
		otherAgent := makeAgent(t, s, other.AccountID, parkedDef)
		if r, _ := openStream(t, s, otherAgent, other.Key, ""); r.StatusCode != http.StatusOK {
			t.Fatalf("another account's stream: %d", r.StatusCode)
		}

		// Hanging up gives the slot back: the key may open one again.
		hung[0]()
		waitOpen(t, s, "", s.AccountID, 4)
		if r, _ := openStream(t, s, agent, s.Key, runID+":0"); r.StatusCode != http.StatusOK {
			t.Fatalf("after closing one: %d", r.StatusCode)
		}
		waitOpen(t, s, "", s.AccountID, 5)

		// Requests refused for other reasons hold no slot afterwards.
		hung[1]()
		waitOpen(t, s, "", s.AccountID, 4)
		for i := 0; i < 5; i++ {
			if r, _ := openStream(t, s, agent, s.Key, store.NewID()+":3"); r.StatusCode != http.StatusNotFound {
				t.Fatalf("unknown run: %d", r.StatusCode)
			}
		}
		if r, _ := openStream(t, s, agent, s.Key, runID+":0"); r.StatusCode != http.StatusOK {
			t.Fatalf("after refusals: %d", r.StatusCode)
		}
	})
}

// TestStreamsDrainWithReconnect ends open streams, as a shutting-down
// process does: each gets a reconnect event naming the last event it was
// sent (with a retry hint) and ends, giving its slot back; a stream opened
// while draining is told the same at once. A resume from the named event
// loses nothing.
func TestStreamsDrainWithReconnect(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := makeAgent(t, s, s.AccountID, parkedDef)
		resp, _ := openStream(t, s, agent, s.Key, "")
		// Drain once the run has parked; read on to the end of the body.
		evs := readSSE(t, resp, func(e sseEvent) bool {
			if e.event == "waiting_human" {
				s.S.API.DrainStreams()
			}
			return false
		})
		if len(evs) < 3 || evs[len(evs)-1].event != "reconnect" || evs[len(evs)-1].id != "" {
			t.Fatalf("events: %+v", evs)
		}
		last := evs[len(evs)-2].id
		runID, _, _ := strings.Cut(last, ":")
		var rc struct {
			RunID       string `json:"run_id"`
			LastEventID string `json:"last_event_id"`
			Detail      string `json:"detail"`
		}
		if err := json.Unmarshal([]byte(evs[len(evs)-1].data), &rc); err != nil || rc.RunID != runID || rc.LastEventID != last || rc.Detail == "" {
			t.Fatalf("reconnect event %s (%v): want last_event_id %s", evs[len(evs)-1].data, err, last)
		}
		waitOpen(t, s, "", s.AccountID, 0)

		// While draining, a resume is told to reconnect at once, from where
		// it asked to start.
		r, _ := openStream(t, s, agent, s.Key, last)
		raw, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(raw), "retry: 1000\nevent: reconnect\ndata: ") || !strings.Contains(string(raw), `"last_event_id":"`+last+`"`) ||
			strings.Count(string(raw), "event: ") != 1 {
			t.Fatalf("stream opened while draining:\n%s", raw)
		}
		waitOpen(t, s, "", s.AccountID, 0)
	})
}
