package definition

import (
	"fmt"
	"math/rand/v2"
)

// genAccount is a set of entities for generated definitions.
type genAccount struct {
	kbs, banks, sources, agents, users []string
}

func newGenAccount(prefix string) genAccount {
	// Valid UUIDs: call_agent refuses an agent_id that is not one.
	id := func(kind, i int) string { return fmt.Sprintf("%s-%04x-7%03x-8000-000000000000", prefix, kind, i) }
	var a genAccount
	for i := 0; i < 3; i++ {
		a.kbs = append(a.kbs, id(1, i))
		a.banks = append(a.banks, id(2, i))
		a.sources = append(a.sources, id(3, i))
		a.agents = append(a.agents, id(4, i))
		a.users = append(a.users, id(5, i))
	}
	return a
}

func (a genAccount) all() []string {
	var out []string
	for _, l := range [][]string{a.kbs, a.banks, a.sources, a.agents, a.users} {
		out = append(out, l...)
	}
	return out
}

// genDef builds a random definition that is valid by construction for
// trigger, referencing entities of acct: every step type that can appear
// in such a tree, nested through every kind of sub-tree.
type genDef struct {
	r       *rand.Rand
	acct    genAccount
	trigger TriggerType
	n       int
}

func generateDefinition(seed uint64, acct genAccount, trigger TriggerType) *Definition {
	g := &genDef{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), acct: acct, trigger: trigger}
	d := &Definition{Name: fmt.Sprintf("generated %d", seed), Description: "random", Tags: []string{"gen"}}
	for i := 0; i < 1+g.r.IntN(3); i++ {
		d.Steps = append(d.Steps, g.step(0, false))
	}
	return d
}

func (g *genDef) id(t StepType) string {
	g.n++
	return fmt.Sprintf("%s-%d", t, g.n)
}

func (g *genDef) pick(l []string) string { return l[g.r.IntN(len(l))] }

// step returns a step; inBranch forbids display/streaming results.
func (g *genDef) step(depth int, inBranch bool) *Step {
	kinds := []StepType{StepText, StepPromptCall, StepRetrieval, StepSearchMemory, StepCallAgent, StepGate,
		StepRegexReplace, StepMerge, StepWebhookCall, StepHumanInTheLoop, StepExtractContent, StepAddChatTurn}
	if depth < 3 {
		kinds = append(kinds, StepIfElse, StepSwitch, StepForEach)
	}
	if !inBranch {
		kinds = append(kinds, StepDisplayResult)
	}
	if g.trigger == TriggerNewContent {
		kinds = append(kinds, StepWriteMetadata, StepLoadContent)
	}
	t := kinds[g.r.IntN(len(kinds))]
	s := &Step{ID: g.id(t), Name: "step " + string(t), Type: t, Config: map[string]any{}}
	c := s.Config
	switch t {
	case StepText:
		c["text"] = "hello {{input}}"
	case StepPromptCall:
		c["model"] = "m"
		c["prompt_template"] = "Answer {{input}}"
		c["temperature"] = float64(g.r.IntN(20)) / 10
		if g.r.IntN(2) == 0 {
			c["tools"] = []any{map[string]any{"type": "retrieval", "knowledge_base_id": g.pick(g.acct.kbs)}}
		}
		if g.trigger.Interactive() && !inBranch && g.r.IntN(2) == 0 {
			s.Children = []*Step{{ID: g.id(StepStreamingResult), Name: "stream", Type: StepStreamingResult, Config: map[string]any{}}}
			return s
		}
	case StepRetrieval:
		c["knowledge_base_id"] = g.pick(g.acct.kbs)
		c["top_k"] = 1 + g.r.IntN(10)
		if g.r.IntN(2) == 0 {
			c["source_connection_ids"] = []any{g.pick(g.acct.sources)}
		}
	case StepSearchMemory:
		c["memory_bank_id"] = g.pick(g.acct.banks)
	case StepAddChatTurn:
		c["memory_bank_id"] = g.pick(g.acct.banks)
		c["role"] = "assistant"
	case StepCallAgent:
		c["agent_id"] = g.pick(g.acct.agents)
	case StepGate:
		c["conditions"] = []any{map[string]any{"operator": "contains", "value": "ok"}}
	case StepRegexReplace:
		c["rules"] = []any{map[string]any{"pattern": "\\s+", "replacement": " "}}
	case StepMerge:
		c["template"] = "{{input}}"
	case StepWebhookCall:
		c["url"] = "https://hooks.acme.test/in"
	case StepHumanInTheLoop:
		c["instructions"] = "Approve?"
		c["assignee_user_ids"] = []any{g.pick(g.acct.users)}
	case StepExtractContent:
		c["format"] = "json"
		c["path"] = "$.items"
	case StepWriteMetadata:
		c["metadata_key"] = "k"
		c["content"] = "{{input}}"
	case StepLoadContent:
	case StepDisplayResult:
		return s
	case StepIfElse:
		c["conditions"] = []any{map[string]any{"operator": "is_not_empty"}}
		s.Then = g.steps(depth+1, true, 1)
		if g.r.IntN(2) == 0 {
			s.Else = g.steps(depth+1, true, 1)
		}
	case StepSwitch:
		c["discriminator"] = "{{input}}"
		for i := 0; i < 1+g.r.IntN(2); i++ {
			s.Cases = append(s.Cases, &Case{Match: fmt.Sprintf("v%d", i), Steps: g.steps(depth+1, true, 1)})
		}
	case StepForEach:
		c["max_items"] = 10
		s.Body = g.steps(depth+1, true, 1)
	}
	if depth < 4 && g.r.IntN(3) > 0 {
		s.Children = g.steps(depth+1, inBranch, 0)
	}
	return s
}

func (g *genDef) steps(depth int, inBranch bool, minN int) []*Step {
	n := minN + g.r.IntN(2)
	if n == 0 {
		n = 1
	}
	out := make([]*Step, n)
	for i := range out {
		out[i] = g.step(depth, inBranch)
	}
	return out
}
