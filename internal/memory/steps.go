package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/knowledge/metafilter"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/telemetry"
)

// RegisterSteps registers the five memory step types.
func RegisterSteps(r *engine.Registry, s *Service) {
	r.Register(definition.StepAddChatTurn, traced("write", s.stepAddChatTurn))
	r.Register(definition.StepLoadChatHistory, traced("read", s.stepLoadChatHistory))
	r.Register(definition.StepAddMemory, traced("write", s.stepAddMemory))
	r.Register(definition.StepSearchMemory, traced("search", s.stepSearchMemory))
	r.Register(definition.StepLoadMemory, traced("read", s.stepLoadMemory))
}

// traced wraps a memory step in a `memory <op>` span (read, write,
// search) naming its bank, when the step names it plainly.
func traced(op string, h engine.HandlerFunc) engine.HandlerFunc {
	return func(ctx context.Context, x *engine.Exec) (engine.Result, error) {
		bank, _ := x.Step.String("memory_bank_id")
		if strings.Contains(bank, "{{") {
			bank = "" // a template: rendered by the step, not here
		}
		ctx, span := telemetry.StartMemory(ctx, op, bank)
		res, err := h(ctx, x)
		span.End(err)
		return res, err
	}
}

// stepBank resolves the step's bank, which must be the run's account's
// and of the given type: another account's bank is "not found".
func (s *Service) stepBank(ctx context.Context, x *engine.Exec, want string) (MemoryBank, error) {
	id, _ := x.Step.String("memory_bank_id")
	id, err := x.Render(id)
	if err != nil {
		return MemoryBank{}, err
	}
	id = strings.TrimSpace(id)
	if id == "" {
		return MemoryBank{}, fmt.Errorf("%s needs memory_bank_id", x.Step.Type)
	}
	b, err := s.repo.MemoryBank(ctx, x.Run.AccountID, id)
	if errors.Is(err, store.ErrNotFound) {
		return b, fmt.Errorf("memory bank %s not found", id)
	}
	if err != nil {
		return b, err
	}
	if b.Type != want {
		return b, fmt.Errorf("%s works on %s memory banks; %s is a %s bank", x.Step.Type, want, id, b.Type)
	}
	return b, nil
}

// partition renders the step's partition key: the first of names that
// is set. A conversation step without one keeps one running history per
// agent, so two agents sharing a bank never read each other's turns.
func partition(x *engine.Exec, fallback string, names ...string) (string, error) {
	for _, n := range names {
		if tpl, ok := x.Step.String(n); ok && tpl != "" {
			v, err := x.Render(tpl)
			if err != nil {
				return "", err
			}
			v = strings.TrimSpace(v)
			if len(v) > MaxPartitionKey {
				return "", fmt.Errorf("%s is at most %d bytes", n, MaxPartitionKey)
			}
			return v, nil
		}
	}
	return fallback, nil
}

func stepError(err error) error {
	var inv *InvalidError
	if errors.As(err, &inv) {
		return fmt.Errorf("%s: %s", inv.Field, inv.Msg)
	}
	return err
}

func (s *Service) stepAddChatTurn(ctx context.Context, x *engine.Exec) (engine.Result, error) {
	b, err := s.stepBank(ctx, x, TypeConversation)
	if err != nil {
		return engine.Result{}, err
	}
	key, err := partition(x, "agent:"+x.Run.AgentID, "conversation_key", "conversation_id")
	if err != nil {
		return engine.Result{}, err
	}
	speaker := "user"
	for _, n := range []string{"speaker", "role"} {
		if v, ok := x.Step.String(n); ok && v != "" {
			if speaker, err = x.Render(v); err != nil {
				return engine.Result{}, err
			}
			break
		}
	}
	content, err := x.Field("content", "{{input}}")
	if err != nil {
		return engine.Result{}, err
	}
	run := x.Run.ID
	if _, err := s.Add(ctx, b, Write{Partition: key, Speaker: &speaker, Content: content, RunID: &run, Meta: x.Meta("compaction")}); err != nil {
		return engine.Result{}, stepError(err)
	}
	return engine.Result{Output: x.Input}, nil
}

func (s *Service) stepLoadChatHistory(ctx context.Context, x *engine.Exec) (engine.Result, error) {
	b, err := s.stepBank(ctx, x, TypeConversation)
	if err != nil {
		return engine.Result{}, err
	}
	key, err := partition(x, "agent:"+x.Run.AgentID, "conversation_key", "conversation_id")
	if err != nil {
		return engine.Result{}, err
	}
	turns, _ := x.Step.Int("max_turns")
	if turns <= 0 {
		turns = 20
	}
	tokens, _ := x.Step.Int("max_tokens")
	list, err := s.History(ctx, b, key, turns, tokens)
	if err != nil {
		return engine.Result{}, err
	}
	format, _ := x.Step.String("format")
	if format == "messages" {
		msgs := make([]map[string]string, 0, len(list))
		for _, e := range list {
			role := "user"
			if e.Speaker != nil {
				role = *e.Speaker
			}
			if e.Summary {
				role = "system"
			}
			if role != "user" && role != "assistant" && role != "system" {
				role = "user"
			}
			msgs = append(msgs, map[string]string{"role": role, "content": e.Content})
		}
		out, _ := json.Marshal(msgs)
		return engine.Result{Output: string(out), ContentType: "application/json"}, nil
	}
	return engine.Result{Output: Transcript(list)}, nil
}

// Transcript writes turns one per paragraph as "speaker: text"; a summary
// reads "Summary of earlier conversation: …".
func Transcript(list []Entry) string {
	var sb strings.Builder
	for i, e := range list {
		if i > 0 {
			sb.WriteString("\n\n")
		}
		switch {
		case e.Summary:
			sb.WriteString("Summary of earlier conversation: ")
		case e.Speaker != nil && *e.Speaker != "":
			sb.WriteString(*e.Speaker + ": ")
		}
		sb.WriteString(e.Content)
	}
	return sb.String()
}

func (s *Service) stepAddMemory(ctx context.Context, x *engine.Exec) (engine.Result, error) {
	b, err := s.stepBank(ctx, x, TypeGeneral)
	if err != nil {
		return engine.Result{}, err
	}
	key, err := partition(x, "", "group_key")
	if err != nil {
		return engine.Result{}, err
	}
	content, err := x.Field("content", "{{input}}")
	if err != nil {
		return engine.Result{}, err
	}
	meta := map[string]any{}
	if m, ok := x.Step.Config["metadata"].(map[string]any); ok {
		for k, v := range m {
			if str, ok := v.(string); ok {
				if v, err = x.Render(str); err != nil {
					return engine.Result{}, err
				}
			}
			meta[k] = v
		}
	}
	var tags []string
	if list, ok := x.Step.Config["tags"].([]any); ok {
		for _, t := range list {
			if str, ok := t.(string); ok && str != "" && len(tags) < 32 {
				tags = append(tags, str)
			}
		}
	}
	run := x.Run.ID
	if _, err := s.Add(ctx, b, Write{Partition: key, Content: content, Metadata: meta, Tags: tags, RunID: &run, Meta: x.Meta("compaction")}); err != nil {
		return engine.Result{}, stepError(err)
	}
	return engine.Result{Output: x.Input}, nil
}

func (s *Service) stepSearchMemory(ctx context.Context, x *engine.Exec) (engine.Result, error) {
	b, err := s.stepBank(ctx, x, TypeGeneral)
	if err != nil {
		return engine.Result{}, err
	}
	query, err := x.Field("query", "{{input}}")
	if err != nil {
		return engine.Result{}, err
	}
	req := SearchRequest{Query: query, Meta: x.Meta("search_memory")}
	req.TopK, _ = x.Step.Int("top_k")
	for _, n := range []string{"min_score", "score_threshold"} {
		if v, ok := x.Step.Number(n); ok {
			req.Threshold = &v
		}
	}
	if f, ok := x.Step.Config["metadata_filter"].(map[string]any); ok && len(f) > 0 {
		if req.Filter, err = metafilter.Parse(f); err != nil {
			return engine.Result{}, err
		}
	}
	if _, ok := x.Step.String("group_key"); ok {
		key, err := partition(x, "", "group_key")
		if err != nil {
			return engine.Result{}, err
		}
		req.Partition = &key
	}
	hits, err := s.Search(ctx, b, req)
	if err != nil {
		return engine.Result{}, stepError(err)
	}
	if len(hits) == 0 {
		return engine.Result{Output: "No memories found."}, nil
	}
	var sb strings.Builder
	for i, h := range hits {
		if i > 0 {
			sb.WriteString("\n\n")
		}
		fmt.Fprintf(&sb, "[%d] (score %.3f) %s", i+1, h.Score, h.Entry.Content)
	}
	return engine.Result{Output: sb.String()}, nil
}

func (s *Service) stepLoadMemory(ctx context.Context, x *engine.Exec) (engine.Result, error) {
	b, err := s.stepBank(ctx, x, TypeGeneral)
	if err != nil {
		return engine.Result{}, err
	}
	q := EntryFilter{Newest: true, Limit: 50}
	if n, ok := x.Step.Int("limit"); ok && n > 0 {
		q.Limit = min(n, 1000)
	}
	if o, _ := x.Step.String("order"); o == "oldest" {
		q.Newest = false
	}
	if _, ok := x.Step.String("group_key"); ok {
		key, err := partition(x, "", "group_key")
		if err != nil {
			return engine.Result{}, err
		}
		q.Partition = &key
	}
	list, err := s.repo.MemoryEntries(ctx, b.AccountID, b.ID, q)
	if err != nil {
		return engine.Result{}, err
	}
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = e.Content
	}
	return engine.Result{Output: strings.Join(parts, "\n\n")}, nil
}
