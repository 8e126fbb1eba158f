package solutions

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/knowledge"
)

// A plan is a list of typed actions. Each names a resource kind and a verb
// and carries what the API operation needs: `body`, the request body of
// the create or update operation, exactly as a client would send it, and
// `id`, the resource an update or delete acts on. A value "$action_N"
// anywhere in an action stands for the id of the resource action N (1-based)
// creates, so a knowledge base can be made over a source created earlier in
// the same plan.

// Action types.
const (
	CreateSource        = "create_source"
	UpdateSource        = "update_source"
	DeleteSource        = "delete_source"
	CreateKnowledgeBase = "create_knowledge_base"
	UpdateKnowledgeBase = "update_knowledge_base"
	DeleteKnowledgeBase = "delete_knowledge_base"
	CreateAgent         = "create_agent"
	UpdateAgent         = "update_agent"
	DeleteAgent         = "delete_agent"
)

// Resource types of actions and their results.
const (
	ResourceSource        = "source_connection"
	ResourceKnowledgeBase = "knowledge_base"
	ResourceAgent         = "agent"
)

// actionSpec is how an action type reaches the API.
type actionSpec struct {
	resource, verb, method, collection string
}

var actionSpecs = map[string]actionSpec{
	CreateSource:        {ResourceSource, "create", "POST", "/sources"},
	UpdateSource:        {ResourceSource, "update", "PUT", "/sources"},
	DeleteSource:        {ResourceSource, "delete", "DELETE", "/sources"},
	CreateKnowledgeBase: {ResourceKnowledgeBase, "create", "POST", "/knowledge_bases"},
	UpdateKnowledgeBase: {ResourceKnowledgeBase, "update", "PUT", "/knowledge_bases"},
	DeleteKnowledgeBase: {ResourceKnowledgeBase, "delete", "DELETE", "/knowledge_bases"},
	CreateAgent:         {ResourceAgent, "create", "POST", "/agents"},
	UpdateAgent:         {ResourceAgent, "update", "PUT", "/agents"},
	DeleteAgent:         {ResourceAgent, "delete", "DELETE", "/agents"},
}

// ActionTypes lists the action types, for schemas and docs.
func ActionTypes() []string {
	return []string{CreateSource, UpdateSource, DeleteSource, CreateKnowledgeBase, UpdateKnowledgeBase, DeleteKnowledgeBase,
		CreateAgent, UpdateAgent, DeleteAgent}
}

// Action is one proposed change.
type Action struct {
	Type          string         `json:"action_type"`
	Description   string         `json:"description"`
	IsDestructive bool           `json:"is_destructive"`
	Params        map[string]any `json:"params"`
	Preview       map[string]any `json:"preview"`
}

// Executed is the result of one action.
type Executed struct {
	Type               string  `json:"action_type"`
	Description        string  `json:"description"`
	Success            bool    `json:"success"`
	Error              *string `json:"error"`
	ResourceID         *string `json:"resource_id"`
	ResourceType       *string `json:"resource_type"`
	NeedsClarification bool    `json:"needs_clarification"`
}

// Executor runs API operations on behalf of the caller, inside the caller's
// permissions, and checks request bodies against the operations' schemas.
// The API layer implements it (a plan's actions are the API's own
// requests, so they obey exactly its rules).
type Executor interface {
	// ValidateBody checks body against the request schema of the operation
	// at method and path, and returns the problems found.
	ValidateBody(method, path string, body any) []string
	// Do sends a request and returns the status and the response body.
	Do(ctx context.Context, method, path string, body any) (int, []byte, error)
}

var reRef = regexp.MustCompile(`^\$action_([0-9]{1,3})$`)

// refIndex returns N of "$action_N", or 0.
func refIndex(v string) int {
	m := reRef.FindStringSubmatch(v)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// placeholderID is the stand-in id of a resource action n will create,
// used while validating: well-formed, and never a real id (v4 form, real
// ids are v7).
func placeholderID(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// substitute returns v with every "$action_N" replaced by ids[N].
func substitute(v any, ids func(n int) (string, bool)) any {
	switch x := v.(type) {
	case string:
		if n := refIndex(x); n > 0 {
			if id, ok := ids(n); ok {
				return id
			}
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = substitute(e, ids)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = substitute(e, ids)
		}
		return out
	}
	return v
}

// refsOf lists the action numbers v refers to.
func refsOf(v any, out *[]int) {
	switch x := v.(type) {
	case string:
		if n := refIndex(x); n > 0 {
			*out = append(*out, n)
		}
	case map[string]any:
		for _, e := range x {
			refsOf(e, out)
		}
	case []any:
		for _, e := range x {
			refsOf(e, out)
		}
	}
}

// normalize turns params into plain JSON values (maps and slices of any),
// so substitution and validation see one shape whoever built them.
func normalize(a Action) (Action, error) {
	b, err := json.Marshal(a.Params)
	if err != nil {
		return a, err
	}
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		return a, err
	}
	if p == nil {
		p = map[string]any{}
	}
	a.Params = p
	return a, nil
}

// MaxActions bounds a plan.
const MaxActions = 20

// ValidatePlan checks a plan against the rules of the API: every action's
// type, the ids it acts on (the account's own resources, or one created by
// an earlier action of the plan), its request body against the operation's
// schema and the area's rules, and an agent's workflow against the same
// validator as PUT /agents/{id}/definition. It returns the problems, each
// prefixed with the action's number, and attaches each agent action's
// preview.
func (s *Service) ValidatePlan(ctx context.Context, accountID string, ex Executor, actions []Action) ([]string, error) {
	var problems []string
	fail := func(i int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("action %d: %s", i+1, fmt.Sprintf(format, args...)))
	}
	if len(actions) > MaxActions {
		return []string{fmt.Sprintf("a plan has at most %d actions", MaxActions)}, nil
	}
	creates := map[int]string{} // action number → resource type it creates
	for i := range actions {
		a, err := normalize(actions[i])
		if err != nil {
			return nil, err
		}
		actions[i] = a
		spec, ok := actionSpecs[a.Type]
		if !ok {
			fail(i, "unknown action_type %q (one of %s)", a.Type, strings.Join(ActionTypes(), ", "))
			continue
		}
		actions[i].IsDestructive = spec.verb == "delete"
		var refs []int
		refsOf(a.Params, &refs)
		planned := map[string]string{} // placeholder id → resource type
		for _, n := range refs {
			typ, ok := creates[n]
			if !ok {
				fail(i, "$action_%d does not name an earlier action that creates a resource", n)
				continue
			}
			planned[placeholderID(n)] = typ
		}
		if spec.verb != "create" {
			id, _ := a.Params["id"].(string)
			if n := refIndex(id); n > 0 {
				if creates[n] != spec.resource {
					fail(i, "id $action_%d does not name an earlier action that creates a %s", n, spec.resource)
				}
			} else if id == "" {
				fail(i, "params.id is required")
			} else if ok, err := s.exists(ctx, accountID, spec.resource, id); err != nil {
				return nil, err
			} else if !ok {
				fail(i, "%s %s not found", spec.resource, id)
			}
		}
		if spec.verb == "create" {
			creates[i+1] = spec.resource
		}
		if spec.verb == "delete" {
			continue
		}
		body, ok := substitute(a.Params["body"], func(n int) (string, bool) { return placeholderID(n), true }).(map[string]any)
		if !ok {
			fail(i, "params.body must be an object: the request body of %s %s", spec.method, spec.collection)
			continue
		}
		path := spec.collection
		if spec.verb == "update" {
			path += "/{id}"
		}
		for _, p := range ex.ValidateBody(spec.method, path, body) {
			fail(i, "%s", p)
		}
		for _, p := range areaRules(a.Type, body) {
			fail(i, "%s", p)
		}
		if spec.resource == ResourceAgent {
			ps, preview, err := s.checkAgentBody(ctx, accountID, a, body, planned)
			if err != nil {
				return nil, err
			}
			actions[i].Preview = preview
			for _, p := range ps {
				fail(i, "%s", p)
			}
		}
	}
	return problems, nil
}

func (s *Service) exists(ctx context.Context, accountID, resource, id string) (bool, error) {
	missing, err := s.repo.missing(ctx, accountID, resourceKind[resource], []string{id})
	return len(missing) == 0, err
}

// areaRules are the rules the areas apply after the schema that a plan can
// check without saving anything.
func areaRules(typ string, body map[string]any) []string {
	var out []string
	str := func(k string) string { v, _ := body[k].(string); return v }
	switch typ {
	case CreateSource:
		switch st := str("source_type"); st {
		case "rss", "website":
			if str("url_id") == "" && str("url") == "" {
				out = append(out, "body.url_id: a "+st+" source needs the feed or site URL")
			}
		case "custom_index", "file_uploads":
		default:
			out = append(out, fmt.Sprintf("body.source_type: %q is not rss, website or custom_index", st))
		}
		fallthrough
	case UpdateSource:
		if p := str("polling"); p != "" {
			if _, err := knowledge.ParsePolling(p); err != nil {
				out = append(out, "body.polling: "+err.Error())
			}
		}
	case CreateKnowledgeBase:
		if ids, _ := body["source_ids"].([]any); len(ids) == 0 {
			out = append(out, "body.source_ids: a knowledge base needs at least one source")
		}
	}
	return out
}

// checkAgentBody validates an agent action's workflow with the agents
// area's validator and builds its preview.
func (s *Service) checkAgentBody(ctx context.Context, accountID string, a Action, body map[string]any, planned map[string]string) ([]string, map[string]any, error) {
	raw, ok := body["agent_definition"]
	if !ok || raw == nil {
		return nil, nil, nil
	}
	payload, err := json.Marshal(raw)
	if err != nil {
		return nil, nil, err
	}
	isPlanned := func(kind def.RefKind, id string) bool {
		typ, ok := planned[id]
		return ok && string(kind) == typ
	}
	trigger, _ := body["trigger_type"].(string)
	// Creating and updating read agent_definition alike (an export, or a
	// bare definition); the import's checks are those of both.
	probs, err := s.Agents.CheckImport(ctx, accountID, trigger, payload, isPlanned)
	if err != nil {
		return nil, nil, err
	}
	preview := map[string]any{"warnings": []string{}}
	var steps any = []any{}
	// The preview shows the workflow as planned, references unresolved.
	if b, ok := a.Params["body"].(map[string]any); ok {
		raw = b["agent_definition"]
	}
	if m, ok := raw.(map[string]any); ok {
		if ag, ok := m["agent"].(map[string]any); ok {
			if d, ok := ag["definition"].(map[string]any); ok {
				steps = d["child_steps"]
			}
		} else if cs, ok := m["child_steps"]; ok {
			steps = cs
		}
	}
	preview["steps"] = steps
	preview["step_count"] = countSteps(steps)
	if len(probs) > 0 {
		preview["warnings"] = probs
	}
	return probs, preview, nil
}

func countSteps(v any) int {
	n := 0
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			n += countSteps(e)
		}
	case map[string]any:
		if _, ok := x["step_type"]; ok {
			n++
		}
		for _, k := range []string{"child_steps", "then_steps", "else_steps", "body", "cases", "steps"} {
			if c, ok := x[k]; ok {
				n += countSteps(c)
			}
		}
	}
	return n
}

// hasDeletions reports whether a plan destroys anything.
func hasDeletions(actions []Action) bool {
	return slices.ContainsFunc(actions, func(a Action) bool { return actionSpecs[a.Type].verb == "delete" })
}
