package isolation

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/testserver"
)

// Memory banks: A's banks, their entries and A's assistant conversation
// belong to A; B never lists, reads, changes, compacts, resets, dry-runs
// or deletes them, and B's own requests never show A's entries.

// memOfA makes A's conversation bank with a compaction threshold and one
// of A's turns in it, and an assistant turn of A's.
func memOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	r := c.AsA(t, http.MethodPost, "/memory_banks", map[string]any{"name": "A's memory", "type": "conversation", "max_turns": 50})
	var b struct{ ID string }
	r.JSON(t, &b)
	if b.ID == "" {
		t.Fatalf("A's bank: %s", r.Body)
	}
	speaker := "user"
	if _, err := memory.TestRows(c.DB).AddMemoryEntry(context.Background(), memory.Entry{AccountID: c.A.AccountID, BankID: b.ID, Partition: "alice",
		Speaker: &speaker, Content: "A's secret: the zeppelin launches at noon.", Tokens: 9}); err != nil {
		t.Fatal(err)
	}
	r = c.AsA(t, http.MethodPost, "/memory_banks/ai-assistant", map[string]any{"user_input": "A zeppelin fleet memory"})
	var a struct {
		ConversationID string `json:"conversation_id"`
	}
	r.JSON(t, &a)
	return Vars{"memory_bank_id": b.ID, "conversation_id": a.ConversationID}
}

func noZeppelin(t testing.TB, _ *Ctx, r testserver.Response) {
	t.Helper()
	if strings.Contains(strings.ToLower(string(r.Body)), "zeppelin") {
		t.Errorf("B's answer shows A's data: %.300s", r.Body)
	}
}

func memIntact(t testing.TB, c *Ctx, _ testserver.Response) {
	t.Helper()
	r := c.AsA(t, http.MethodGet, "/memory_banks/{memory_bank_id}", nil)
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "A's memory") {
		t.Errorf("A's bank changed: %d %.300s", r.Status, r.Body)
	}
}

func init() {
	const bank = "/memory_banks/{memory_bank_id}"
	notFoundIntact := func(t testing.TB, c *Ctx, r testserver.Response) {
		t.Helper()
		NotFound()(t, c, r)
		memIntact(t, c, r)
	}
	register(
		Case{Op: "GET /memory_banks", Name: "B does not list A's banks", Setup: memOfA,
			Expect: Status(http.StatusOK, EmptyList("memory_banks")), Control: Status(http.StatusOK, NonEmptyList("memory_banks"))},
		Case{Op: "POST /memory_banks", Name: "B's new bank is B's own", Setup: memOfA, Body: map[string]any{"name": "B's memory"},
			Expect: Status(http.StatusCreated, noZeppelin), NoControl: true},
		Case{Op: "GET " + bank, Name: "B reads A's bank", Setup: memOfA, Expect: NotFound()},
		Case{Op: "PUT " + bank, Name: "B changes A's bank", Setup: memOfA, Body: map[string]any{"name": "B was here"}, Expect: notFoundIntact},
		Case{Op: "DELETE " + bank, Name: "B deletes A's bank", Setup: memOfA, Expect: notFoundIntact, Control: Status(http.StatusNoContent)},
		Case{Op: "GET " + bank + "/agents", Name: "B lists agents of A's bank", Setup: memOfA, Expect: NotFound()},
		Case{Op: "GET " + bank + "/stats", Name: "B reads A's stats", Setup: memOfA, Expect: NotFound(),
			Control: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), `"total_entries":1`) {
					t.Errorf("A's stats: %.300s", r.Body)
				}
			})},
		Case{Op: "GET " + bank + "/entries", Name: "B browses A's entries", Setup: memOfA,
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				noZeppelin(t, c, r)
			},
			Control: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), "zeppelin") {
					t.Errorf("A's entries miss A's turn: %.300s", r.Body)
				}
			})},
		Case{Op: "GET " + bank + "/keys", Name: "B lists the keys of A's bank", Setup: memOfA,
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				if strings.Contains(string(r.Body), "alice") {
					t.Errorf("B's answer shows A's key: %.300s", r.Body)
				}
			},
			Control: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), `"key":"alice"`) {
					t.Errorf("A's keys miss alice: %.300s", r.Body)
				}
			})},
		Case{Op: "POST " + bank + "/compact", Name: "B compacts A's bank", Setup: memOfA, Expect: NotFound(), Control: Status(http.StatusAccepted)},
		Case{Op: "DELETE " + bank + "/source", Name: "B resets A's bank", Setup: memOfA,
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				a := c.AsA(t, http.MethodGet, "/memory_banks/{memory_bank_id}/stats", nil)
				if !strings.Contains(string(a.Body), `"total_entries":1`) {
					t.Errorf("A's entries are gone: %.300s", a.Body)
				}
			}, Control: Status(http.StatusNoContent)},
		Case{Op: "POST " + bank + "/test-compaction", Name: "B dry-runs on A's entries", Setup: memOfA, Body: map[string]any{},
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				noZeppelin(t, c, r)
			},
			Control: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), "zeppelin") {
					t.Errorf("A's dry run misses A's entry: %.300s", r.Body)
				}
			})},
		Case{Op: "GET /memory_banks/templates", Name: "B lists the templates", Setup: memOfA, Expect: Status(http.StatusOK, noZeppelin)},
		Case{Op: "POST /memory_banks/test-compaction", Name: "B's dry run sees only its samples", Setup: memOfA,
			Body:   map[string]any{"compaction_prompt": "Summarize.", "sample_entries": []string{"B likes tea.", "B lives in Oslo."}},
			Expect: Status(http.StatusOK, noZeppelin), NoControl: true},
		Case{Op: "POST /memory_banks/ai-assistant", Name: "B's proposal ignores A's conversation", Setup: memOfA,
			Body: map[string]any{"user_input": "a chat memory", "history_since": "2000-01-01T00:00:00Z"}, Expect: Status(http.StatusOK, noZeppelin), NoControl: true},
		Case{Op: "GET /memory_banks/ai-assistant/last-conversation", Name: "B does not see A's assistant turns", Setup: memOfA,
			Expect: Status(http.StatusOK, noZeppelin),
			Control: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), "zeppelin") {
					t.Errorf("A's conversation misses its turn: %.300s", r.Body)
				}
			})},
		Case{Op: "PATCH /memory_banks/ai-assistant/{conversation_id}", Name: "B accepts A's proposal", Setup: memOfA,
			Body: map[string]any{"accepted": true}, Expect: NotFound()},
		Case{Op: "POST /ai-assistant/memory-bank", Name: "B's proposal ignores A's conversation", Setup: memOfA,
			Body: map[string]any{"user_input": "a facts memory", "history_since": "2000-01-01T00:00:00Z"}, Expect: Status(http.StatusOK, noZeppelin), NoControl: true},
		Case{Op: "GET /ai-assistant/memory-bank/last-conversation", Name: "B does not see A's assistant turns", Setup: memOfA,
			Expect: Status(http.StatusOK, noZeppelin)},
		Case{Op: "PATCH /ai-assistant/memory-bank/{conversation_id}", Name: "B declines A's proposal", Setup: memOfA,
			Body: map[string]any{"accepted": false}, Expect: NotFound()},
	)
}
