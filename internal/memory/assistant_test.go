package memory

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestProposalsAreDeterministic(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string]any
	}{
		{"A support chat agent that remembers each customer for 90 days, compacting after 100 turns",
			map[string]any{"type": "conversation", "mode": "fast_and_cheap", "retention_days": 90, "max_turns": 100}},
		{"Store facts about each user's preferences for 6 months, accurately",
			map[string]any{"type": "general", "mode": "slow_and_thorough", "retention_days": 180, "max_size_tokens": 50000}},
		{"research notes, balanced, capped at 20k tokens",
			map[string]any{"type": "general", "mode": "balanced", "retention_days": 30, "max_size_tokens": 20000}},
	} {
		cfg, _ := proposeConfig(c.in, nil)
		again, _ := proposeConfig(c.in, nil)
		if !reflect.DeepEqual(cfg, again) {
			t.Errorf("%q: two proposals differ", c.in)
		}
		for k, v := range c.want {
			if cfg[k] != v {
				t.Errorf("%q: %s = %v, want %v (%v)", c.in, k, cfg[k], v, cfg)
			}
		}
		if cfg["name"] == "" || cfg["compaction_prompt"] == "" {
			t.Errorf("%q: %v", c.in, cfg)
		}
	}
	// Refining changes only what the words mention.
	cur := map[string]any{"name": "Chats", "type": "conversation", "mode": "balanced", "retention_days": float64(30), "max_turns": float64(50)}
	cfg, _ := proposeConfig("keep it for 1 year", cur)
	if cfg["name"] != "Chats" || cfg["mode"] != "balanced" || cfg["retention_days"] != 365 || cfg["max_turns"] != 50 {
		t.Fatalf("refined: %v", cfg)
	}
}

// FuzzProposeConfig: any description and any current configuration give
// a valid proposal, never a panic.
func FuzzProposeConfig(f *testing.F) {
	f.Add("A support chat for 90 days, 100 turns, 20k tokens", `{"type":5,"mode":"balanced","max_turns":-3}`)
	f.Add("facts 99999999 years", `{"retention_days":1e300}`)
	f.Fuzz(func(t *testing.T, in, cur string) {
		var current map[string]any
		_ = json.Unmarshal([]byte(cur), &current)
		cfg, _ := proposeConfig(in, current)
		if ty := cfg["type"]; ty != TypeConversation && ty != TypeGeneral {
			t.Fatalf("type %v", ty)
		}
		if _, ok := modes[cfg["mode"].(string)]; !ok {
			t.Fatalf("mode %v", cfg["mode"])
		}
		if in := ConfigInput(cfg); in.check(false) != nil {
			t.Fatalf("invalid proposal %v: %v", cfg, in.check(false))
		}
	})
}
