package conformance

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/memory"
)

// Memory banks and the memory-bank assistant.

func memBank(kind string, thresholds bool) func(t *testing.T, e *Env) Vars {
	return func(t *testing.T, e *Env) Vars {
		t.Helper()
		body := map[string]any{"name": "Support memory", "type": kind}
		if thresholds {
			body["max_turns"] = 4
		}
		r := e.Do(t, http.MethodPost, "/memory_banks", body)
		var b struct{ ID string }
		r.JSON(t, &b)
		if b.ID == "" {
			t.Fatalf("create memory bank: %s", r.Body)
		}
		return Vars{"memory_bank_id": b.ID}
	}
}

// memBankWithEntries stores a few turns straight into a conversation bank.
func memBankWithEntries(t *testing.T, e *Env) Vars {
	v := memBank("conversation", true)(t, e)
	for _, text := range []string{"My name is Ada and my order is 4417.", "Thanks Ada, order 4417 ships Friday.", "Please send it to Berlin."} {
		speaker := "user"
		if _, err := memory.TestRows(e.DB).AddMemoryEntry(context.Background(), memory.Entry{AccountID: e.Tenant.AccountID, BankID: v["memory_bank_id"],
			Partition: "c1", Speaker: &speaker, Content: text, Tokens: 10}); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func memTurn(t *testing.T, e *Env) Vars {
	r := e.Do(t, http.MethodPost, "/memory_banks/ai-assistant", map[string]any{"user_input": "A support chat that remembers customers for 60 days"})
	var a struct {
		ConversationID string `json:"conversation_id"`
	}
	r.JSON(t, &a)
	if a.ConversationID == "" {
		t.Fatalf("assistant: %s", r.Body)
	}
	return Vars{"conversation_id": a.ConversationID}
}

func init() {
	const bank = "/memory_banks/{memory_bank_id}"
	register(
		Exercise{Op: "POST /memory_banks", Name: "create", Status: http.StatusCreated,
			Body: map[string]any{"name": "Chats", "type": "conversation", "mode": "balanced", "max_turns": 50}, Check: wantBodyHas(`"dimensions":512`)},
		Exercise{Op: "POST /memory_banks", Name: "custom", Status: http.StatusCreated,
			Body: map[string]any{"name": "Facts", "type": "general", "mode": "custom", "dimensions": 128, "chunk_size": 800, "chunk_overlap": 100}},
		Exercise{Op: "POST /memory_banks", Name: "bad type", Status: http.StatusUnprocessableEntity, Body: map[string]any{"name": "x", "type": "diary"}},
		Exercise{Op: "GET /memory_banks", Name: "list", Status: http.StatusOK, Setup: memBank("general", false)},
		Exercise{Op: "GET /memory_banks", Name: "bad order", Status: http.StatusUnprocessableEntity, Path: "/memory_banks?order=sideways"},
		Exercise{Op: "GET " + bank, Name: "get", Status: http.StatusOK, Setup: memBank("conversation", false)},
		Exercise{Op: "GET " + bank, Name: "unknown", Status: http.StatusNotFound, Path: "/memory_banks/" + knMissing},
		Exercise{Op: "GET " + bank, Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/memory_banks/x"},
		Exercise{Op: "PUT " + bank, Name: "update", Status: http.StatusOK, Setup: memBank("conversation", false),
			Body: map[string]any{"max_turns": 10, "description": "Per customer"}},
		Exercise{Op: "PUT " + bank, Name: "negative threshold", Status: http.StatusUnprocessableEntity, Setup: memBank("conversation", false),
			Body: map[string]any{"max_turns": -1}},
		Exercise{Op: "DELETE " + bank, Name: "delete", Status: http.StatusNoContent, Setup: memBank("conversation", false)},
		Exercise{Op: "DELETE " + bank, Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/memory_banks/x"},
		Exercise{Op: "GET " + bank + "/agents", Name: "none", Status: http.StatusOK, Setup: memBank("conversation", false)},
		Exercise{Op: "GET " + bank + "/agents", Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/memory_banks/x/agents"},
		Exercise{Op: "GET " + bank + "/stats", Name: "stats", Status: http.StatusOK, Setup: memBankWithEntries, Check: wantBodyHas(`"total_entries":3`)},
		Exercise{Op: "GET " + bank + "/stats", Name: "days out of range", Status: http.StatusUnprocessableEntity, Setup: memBankWithEntries,
			Path: "/memory_banks/{memory_bank_id}/stats?days=0"},
		Exercise{Op: "POST " + bank + "/compact", Name: "scheduled", Status: http.StatusAccepted, Setup: memBankWithEntries, Check: wantBodyHas(`"scheduled"`)},
		Exercise{Op: "POST " + bank + "/compact", Name: "no threshold", Status: http.StatusBadRequest, Setup: memBank("conversation", false)},
		Exercise{Op: "POST " + bank + "/compact", Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/memory_banks/x/compact"},
		Exercise{Op: "DELETE " + bank + "/source", Name: "reset", Status: http.StatusNoContent, Setup: memBankWithEntries},
		Exercise{Op: "DELETE " + bank + "/source", Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/memory_banks/x/source"},
		Exercise{Op: "POST " + bank + "/test-compaction", Name: "bank entries", Status: http.StatusOK, Setup: memBankWithEntries, Body: map[string]any{}},
		Exercise{Op: "POST " + bank + "/test-compaction", Name: "entry_count too large", Status: http.StatusUnprocessableEntity, Setup: memBankWithEntries,
			Body: map[string]any{"generate_direction": "a support chat", "entry_count": 50}},
		Exercise{Op: "POST /memory_banks/test-compaction", Name: "samples", Status: http.StatusOK,
			Body: map[string]any{"compaction_prompt": "Summarize the facts.", "sample_entries": []string{"Ada lives in Berlin.", "Ada prefers email.", "Her order is 4417."}}},
		Exercise{Op: "POST /memory_banks/test-compaction", Name: "no prompt", Status: http.StatusUnprocessableEntity, Body: map[string]any{"sample_entries": []string{"x"}}},
		Exercise{Op: "GET /memory_banks/templates", Name: "list", Status: http.StatusOK},
		Exercise{Op: "POST /memory_banks/ai-assistant", Name: "propose", Status: http.StatusOK,
			Body: map[string]any{"user_input": "A support chat agent that remembers each customer for 90 days"}, Check: wantBodyHas(`"retention_days":90`)},
		Exercise{Op: "POST /memory_banks/ai-assistant", Name: "blank input", Status: http.StatusBadRequest, Body: map[string]any{"user_input": "   "}},
		Exercise{Op: "POST /memory_banks/ai-assistant", Name: "no input", Status: http.StatusUnprocessableEntity, Body: map[string]any{}},
		Exercise{Op: "GET /memory_banks/ai-assistant/last-conversation", Name: "turns", Status: http.StatusOK, Setup: memTurn},
		Exercise{Op: "GET /memory_banks/ai-assistant/last-conversation", Name: "limit too large", Status: http.StatusUnprocessableEntity,
			Path: "/memory_banks/ai-assistant/last-conversation?limit=51"},
		Exercise{Op: "PATCH /memory_banks/ai-assistant/{conversation_id}", Name: "accept", Status: http.StatusOK, Setup: memTurn,
			Body: map[string]any{"accepted": true}},
		Exercise{Op: "PATCH /memory_banks/ai-assistant/{conversation_id}", Name: "missing accepted", Status: http.StatusUnprocessableEntity, Setup: memTurn,
			Body: map[string]any{}},
		Exercise{Op: "PATCH /memory_banks/ai-assistant/{conversation_id}", Name: "unknown", Status: http.StatusNotFound,
			Path: "/memory_banks/ai-assistant/" + knMissing, Body: map[string]any{"accepted": false}},
		Exercise{Op: "POST /ai-assistant/memory-bank", Name: "propose", Status: http.StatusOK,
			Body: map[string]any{"user_input": "Store facts about each user's preferences, accurately"}, Check: wantBodyHas(`"type":"general"`)},
		Exercise{Op: "POST /ai-assistant/memory-bank", Name: "no input", Status: http.StatusUnprocessableEntity, Body: map[string]any{}},
		Exercise{Op: "GET /ai-assistant/memory-bank/last-conversation", Name: "turns", Status: http.StatusOK, Setup: memTurn},
		Exercise{Op: "GET /ai-assistant/memory-bank/last-conversation", Name: "negative offset", Status: http.StatusUnprocessableEntity,
			Path: "/ai-assistant/memory-bank/last-conversation?offset=-1"},
		Exercise{Op: "PATCH /ai-assistant/memory-bank/{conversation_id}", Name: "decline", Status: http.StatusOK, Setup: memTurn,
			Body: map[string]any{"accepted": false}},
		Exercise{Op: "PATCH /ai-assistant/memory-bank/{conversation_id}", Name: "malformed id", Status: http.StatusUnprocessableEntity,
			Path: "/ai-assistant/memory-bank/x", Body: map[string]any{"accepted": false}},
	)
	waive("POST /memory_banks", http.StatusPaymentRequired, "no subscription plan limits the number of memory banks")
}
