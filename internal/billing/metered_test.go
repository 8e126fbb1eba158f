package billing

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/llmtest"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/routing"
)

func meteredRouter(t *testing.T, p llm.Provider, balances map[string]int64) (*Metered, *llm.MemoryMeter) {
	t.Helper()
	cat := catalog.Builtin()
	r := routing.NewRouter(cat)
	r.Register("openai", p, routing.Serving{CatalogProviders: []string{"openai"}})
	m := llm.NewMemoryMeter(balances)
	return NewMetered(r, m, cat), m
}

func TestMeteredChatRecordsCost(t *testing.T) {
	p := &llmtest.Recorder{Name: "x", Usage: llm.Usage{InputTokens: 1000, OutputTokens: 1000, CachedInputTokens: 400}}
	mt, meter := meteredRouter(t, p, map[string]int64{"acct": 1_000_000})
	meta := llm.CallMeta{AccountID: "acct", Purpose: "prompt_call", RunID: "run1", StepID: "step1", ExperimentID: "exp1"}
	resp, err := mt.Chat(context.Background(), llm.ChatRequest{Model: "gpt-4o", Meta: meta, Messages: []llm.Message{llm.User("hello")}})
	if err != nil || resp.Model != "openai_gpt_4o" {
		t.Fatalf("%+v %v", resp, err)
	}
	recs := meter.Records()
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	// 600 at 2500 + 400 at 1250 + 1000 at 10000, per 1000 tokens.
	if r.Credits != 12000 || r.ExactCredits != 12000 || r.Model != "openai_gpt_4o" || r.InputTokens != 1000 || r.CachedInputTokens != 400 {
		t.Errorf("record %+v", r)
	}
	if r.AccountID != "acct" || r.Purpose != "prompt_call" || r.RunID != "run1" || r.StepID != "step1" || r.ExperimentID != "exp1" || r.Latency < 0 || r.At.IsZero() {
		t.Errorf("record meta %+v", r)
	}
	if meter.Balance("acct") != 1_000_000-12000 {
		t.Errorf("balance %d", meter.Balance("acct"))
	}
}

func TestMeteredRefusesBeforeCalling(t *testing.T) {
	p := &llmtest.Recorder{Name: "x", Usage: llm.Usage{InputTokens: 1, OutputTokens: 1}}
	mt, meter := meteredRouter(t, p, map[string]int64{"poor": 10})
	_, err := mt.Chat(context.Background(), llm.ChatRequest{Model: "openai_gpt_4o", Meta: llm.CallMeta{AccountID: "poor"}, Messages: []llm.Message{llm.User("hello")}})
	if !errors.Is(err, llm.ErrInsufficientCredits) || len(p.Models()) != 0 || len(meter.Records()) != 0 {
		t.Errorf("err %v, provider called %d times", err, len(p.Models()))
	}
	_, err = mt.Stream(context.Background(), llm.ChatRequest{Model: "openai_gpt_4o", Meta: llm.CallMeta{AccountID: "poor"}, Messages: []llm.Message{llm.User("hello")}}, func(llm.Delta) error { return nil })
	if !errors.Is(err, llm.ErrInsufficientCredits) || len(p.Models()) != 0 {
		t.Errorf("stream: err %v", err)
	}
	if _, err := mt.Chat(context.Background(), llm.ChatRequest{Model: "openai_gpt_4o", Messages: []llm.Message{llm.User("x")}}); !errors.Is(err, ErrNoAccount) {
		t.Errorf("no account: %v", err)
	}
	// Unpriced models are refused outright.
	if _, err := mt.Chat(context.Background(), llm.ChatRequest{Model: "anthropic_claude_sonnet_5_5", Meta: llm.CallMeta{AccountID: "poor"}}); !errors.Is(err, catalog.ErrNoPrice) {
		t.Errorf("unpriced: %v", err)
	}
	// A free model passes authorisation but still needs a route.
	mt2, _ := meteredRouter(t, p, map[string]int64{"a": 1})
	if _, err := mt2.Chat(context.Background(), llm.ChatRequest{Model: "meta_llama_3_1_8b", Meta: llm.CallMeta{AccountID: "a"}}); !errors.Is(err, llm.ErrProviderNotConfigured) {
		t.Errorf("free but unrouted model: %v", err)
	}
}

func TestMeteredStreamAndEmbed(t *testing.T) {
	p := &llmtest.Recorder{Name: "x", Usage: llm.Usage{InputTokens: 10, OutputTokens: 20}, Deltas: []llm.Delta{{Text: "a"}, {Text: "b"}}}
	mt, meter := meteredRouter(t, p, map[string]int64{"acct": 1_000_000})
	n := 0
	if _, err := mt.Stream(context.Background(), llm.ChatRequest{Model: "openai_gpt_4o_mini", Meta: llm.CallMeta{AccountID: "acct", Purpose: "playground"}},
		func(llm.Delta) error { n++; return nil }); err != nil || n != 2 {
		t.Fatalf("stream %v %d", err, n)
	}
	// A stream that fails after output is recorded as partial.
	p.Err = errors.New("connection reset")
	if _, err := mt.Stream(context.Background(), llm.ChatRequest{Model: "openai_gpt_4o_mini", Meta: llm.CallMeta{AccountID: "acct"}, Messages: []llm.Message{llm.User("hi there")}},
		func(llm.Delta) error { return nil }); err == nil {
		t.Fatal("want error")
	}
	p.Err = nil
	if _, err := mt.Embed(context.Background(), llm.EmbedRequest{Model: "openai_text_embedding_3_small", Input: []string{"some text"}, Meta: llm.CallMeta{AccountID: "acct", Purpose: "ingestion"}}); err != nil {
		t.Fatal(err)
	}
	recs := meter.Records()
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
	// gpt-4o-mini: 10*150/1000 + 20*600/1000 = 1.5 + 12 = 13.5 → 14.
	if recs[0].Credits != 14 || recs[0].Purpose != "playground" || recs[0].Partial {
		t.Errorf("stream record %+v", recs[0])
	}
	if !recs[1].Partial || recs[1].OutputTokens != 2 || recs[1].Credits == 0 {
		t.Errorf("partial record %+v", recs[1])
	}
	if recs[2].Kind != string(catalog.KindEmbedding) || recs[2].InputTokens != 10 || recs[2].Credits != 1 {
		t.Errorf("embed record %+v", recs[2])
	}
}

type failingMeter struct{ *llm.MemoryMeter }

func (f *failingMeter) Record(context.Context, llm.UsageRecord) error {
	return errors.New("ledger down")
}

func TestMeteredRecordFailureKeepsResponse(t *testing.T) {
	cat := catalog.Builtin()
	r := routing.NewRouter(cat)
	r.Register("openai", &llmtest.Recorder{Name: "x", Usage: llm.Usage{InputTokens: 1}}, routing.Serving{CatalogProviders: []string{"openai"}})
	fm := &failingMeter{MemoryMeter: llm.NewMemoryMeter(map[string]int64{"a": 100000})}
	resp, err := NewMetered(r, fm, cat).Chat(context.Background(), llm.ChatRequest{Model: "openai_gpt_4o", Meta: llm.CallMeta{AccountID: "a"}})
	var re *RecordError
	if resp == nil || !errors.As(err, &re) {
		t.Errorf("resp %v err %v", resp, err)
	}
}

// TestMeteredNamesMissingProviderBeforeCredits: a call to a model nothing
// serves fails as "no provider configured for model X", even from an
// account whose balance could not cover it (it used to be reported as
// insufficient credits, which sends users to top up instead of configuring
// a provider).
func TestMeteredNamesMissingProviderBeforeCredits(t *testing.T) {
	p := &llmtest.Recorder{Name: "x", Usage: llm.Usage{InputTokens: 1, OutputTokens: 1}}
	mt, meter := meteredRouter(t, p, map[string]int64{"poor": 0, "rich": 1_000_000})
	const unserved = "anthropic_claude_haiku_4_5" // priced, but only openai is registered
	for _, account := range []string{"poor", "rich"} {
		req := llm.ChatRequest{Model: unserved, Meta: llm.CallMeta{AccountID: account}, Messages: []llm.Message{llm.User("hello")}}
		_, err := mt.Chat(context.Background(), req)
		if !errors.Is(err, llm.ErrProviderNotConfigured) || errors.Is(err, llm.ErrInsufficientCredits) ||
			!strings.Contains(err.Error(), "no provider configured for model "+unserved) {
			t.Errorf("%s account, chat: %v", account, err)
		}
		_, err = mt.Stream(context.Background(), req, func(llm.Delta) error { return nil })
		if !errors.Is(err, llm.ErrProviderNotConfigured) {
			t.Errorf("%s account, stream: %v", account, err)
		}
	}
	if len(p.Models()) != 0 || len(meter.Records()) != 0 {
		t.Errorf("provider called %d times, %d records", len(p.Models()), len(meter.Records()))
	}
}
