package definition

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// CurrentExportVersion is the export format this package writes.
const CurrentExportVersion = "2"

// SupportedExportVersions are the export formats Import reads as such. A
// payload claiming another version is still read, field by field, with a
// warning (fields this version does not know are kept, unknown semantics
// are not applied); a payload without export_version is a legacy payload.
var SupportedExportVersions = []string{CurrentExportVersion}

// CurrentSchemaVersion is the agent schema_version of definitions.
const CurrentSchemaVersion = "v1"

// Export is the portable snapshot of GET /agents/{id}/export
// (AgentExportResponse) and the payload of imports. Every documented key is
// written, null when empty, as the reference exporter does; unknown keys met
// on import are kept in the Extra maps and written back.
type Export struct {
	ExportVersion      string           `json:"export_version"`
	ExportedAt         string           `json:"exported_at"`
	SoftwareVersion    string           `json:"software_version"`
	Agent              AgentSnapshot    `json:"agent"`
	Trigger            *TriggerSnapshot `json:"trigger"`
	AlertConfigs       []any            `json:"alert_configs"`
	EvaluationCriteria []any            `json:"evaluation_criteria"`
	GovernancePolicies []any            `json:"governance_policies"`
	Dependencies       *Dependencies    `json:"dependencies"`
	Solutions          []any            `json:"solutions"`
	Extra              map[string]any   `json:"-"`
}

// AgentSnapshot is the `agent` object: metadata and the definition.
type AgentSnapshot struct {
	Name                            string         `json:"name"`
	Description                     *string        `json:"description"`
	SchemaVersion                   string         `json:"schema_version"`
	Definition                      *Definition    `json:"definition"`
	DefaultEvaluationTier           *string        `json:"default_evaluation_tier"`
	EvaluationMode                  *string        `json:"evaluation_mode"`
	SamplingConfig                  map[string]any `json:"sampling_config"`
	MaxRetries                      *int           `json:"max_retries"`
	RetryOnFailure                  *bool          `json:"retry_on_failure"`
	PromptModelAutoUpgradeStrategy  *string        `json:"prompt_model_auto_upgrade_strategy"`
	PromptModelAutoRollbackEnabled  *bool          `json:"prompt_model_auto_rollback_enabled"`
	PromptModelAutoRollbackTriggers []string       `json:"prompt_model_auto_rollback_triggers"`
	CreatedAt                       *string        `json:"created_at"`
	UpdatedAt                       *string        `json:"updated_at"`
	Extra                           map[string]any `json:"-"`
}

// TriggerSnapshot is the `trigger` object.
type TriggerSnapshot struct {
	// ID is the exporting account's trigger id, for reference (it is what
	// PUT /agents/{agent_id}/triggers/{trigger_id}/email-config takes); an
	// import ignores it, since the new agent's trigger gets an id of its own.
	ID               string         `json:"id,omitempty"`
	TriggerType      TriggerType    `json:"trigger_type"`
	Name             *string        `json:"name"`
	Input            *string        `json:"input"` // the template of template_input triggers
	InputContentType *string        `json:"input_content_type"`
	AllowEmptyInput  *bool          `json:"allow_empty_input"`
	DefaultInput     *string        `json:"default_input"`
	Metadata         map[string]any `json:"metadata_"`
	KnowledgeBaseID  *string        `json:"knowledge_base_id"`
	Schedules        []any          `json:"schedules"`
	Extra            map[string]any `json:"-"`
}

// Dependencies is the manifest mapping every referenced entity id to its
// name, so that an importer can find the counterpart in its own account.
type Dependencies struct {
	KnowledgeBases    []Entity       `json:"knowledge_bases"`
	MemoryBanks       []Entity       `json:"memory_banks"`
	SourceConnections []Entity       `json:"source_connections"`
	Agents            []Entity       `json:"agents"`
	Users             []Entity       `json:"users"`
	Extra             map[string]any `json:"-"`
}

// Entity is one manifest entry: {id, name, description, …}.
type Entity struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Description *string        `json:"description"`
	Extra       map[string]any `json:"-"`
}

// List returns the manifest list of a kind.
func (d *Dependencies) List(kind RefKind) []Entity {
	if d == nil {
		return nil
	}
	return *d.slot(kind)
}

// Lookup finds an entity of the manifest.
func (d *Dependencies) Lookup(kind RefKind, id string) (Entity, bool) {
	for _, e := range d.List(kind) {
		if e.ID == id {
			return e, true
		}
	}
	return Entity{}, false
}

func (d *Dependencies) slot(kind RefKind) *[]Entity {
	switch kind {
	case RefKnowledgeBase:
		return &d.KnowledgeBases
	case RefMemoryBank:
		return &d.MemoryBanks
	case RefSourceConnection:
		return &d.SourceConnections
	case RefAgent:
		return &d.Agents
	default:
		return &d.Users
	}
}

// manifestKey is the JSON key of each kind's list.
var manifestKey = map[RefKind]string{
	RefKnowledgeBase: "knowledge_bases", RefMemoryBank: "memory_banks",
	RefSourceConnection: "source_connections", RefAgent: "agents", RefUser: "users",
}

// The Marshal methods merge Extra into the object, never over a known key.

// MarshalJSON writes the export object.
func (e Export) MarshalJSON() ([]byte, error) {
	type plain Export
	return marshalWithExtra(plain(e), e.Extra)
}

// MarshalJSON writes the agent object.
func (a AgentSnapshot) MarshalJSON() ([]byte, error) {
	type plain AgentSnapshot
	return marshalWithExtra(plain(a), a.Extra)
}

// MarshalJSON writes the trigger object.
func (t TriggerSnapshot) MarshalJSON() ([]byte, error) {
	type plain TriggerSnapshot
	return marshalWithExtra(plain(t), t.Extra)
}

// MarshalJSON writes the manifest object.
func (d Dependencies) MarshalJSON() ([]byte, error) {
	type plain Dependencies
	for _, k := range RefKinds() {
		if *d.slot(k) == nil {
			*d.slot(k) = []Entity{} // lists are [] in the manifest, never null
		}
	}
	return marshalWithExtra(plain(d), d.Extra)
}

// MarshalJSON writes one manifest entry.
func (e Entity) MarshalJSON() ([]byte, error) {
	type plain Entity
	return marshalWithExtra(plain(e), e.Extra)
}

func marshalWithExtra(v any, extra map[string]any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, x := range extra {
		if _, known := m[k]; known {
			continue
		}
		raw, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		m[k] = raw
	}
	return json.Marshal(m)
}

// Describer names entities for the dependency manifest. The store
// implements it; found is false for an id that no longer exists.
type Describer interface {
	Describe(ctx context.Context, kind RefKind, id string) (e Entity, found bool, err error)
}

// DescriberFunc adapts a function to Describer.
type DescriberFunc func(ctx context.Context, kind RefKind, id string) (Entity, bool, error)

// Describe calls f.
func (f DescriberFunc) Describe(ctx context.Context, kind RefKind, id string) (Entity, bool, error) {
	return f(ctx, kind, id)
}

// ExportInput is what the export handler loads for one agent.
type ExportInput struct {
	Agent              AgentSnapshot // with Definition set
	Trigger            *TriggerSnapshot
	AlertConfigs       []any
	EvaluationCriteria []any
	GovernancePolicies []any
	Solutions          []any
	ExportedAt         time.Time
	SoftwareVersion    string
}

// BuildExport assembles the export, computing the dependency manifest from
// the entities the definition, the trigger, alert recipients and
// human-in-the-loop assignees reference. Entities the Describer no longer
// finds are listed with an empty name, so an importer still sees the id.
// The manifest is null when nothing is referenced.
func BuildExport(ctx context.Context, in ExportInput, d Describer) (*Export, error) {
	if in.Agent.Definition == nil {
		return nil, fmt.Errorf("definition: export of %q has no definition", in.Agent.Name)
	}
	e := &Export{
		ExportVersion:      CurrentExportVersion,
		ExportedAt:         in.ExportedAt.UTC().Format(time.RFC3339Nano),
		SoftwareVersion:    in.SoftwareVersion,
		Agent:              in.Agent,
		Trigger:            in.Trigger,
		AlertConfigs:       in.AlertConfigs,
		EvaluationCriteria: in.EvaluationCriteria,
		GovernancePolicies: in.GovernancePolicies,
		Solutions:          in.Solutions,
	}
	if e.Agent.SchemaVersion == "" {
		e.Agent.SchemaVersion = CurrentSchemaVersion
	}
	refs := ExportRefs(e)
	if len(refs) == 0 {
		return e, nil
	}
	deps := &Dependencies{}
	seen := map[Ref]bool{}
	for _, r := range refs {
		key := Ref{Kind: r.Kind, ID: r.ID}
		if seen[key] {
			continue
		}
		seen[key] = true
		ent, found, err := d.Describe(ctx, r.Kind, r.ID)
		if err != nil {
			return nil, fmt.Errorf("describing %s %s: %w", r.Kind, r.ID, err)
		}
		if !found {
			ent = Entity{}
		}
		ent.ID = r.ID
		*deps.slot(r.Kind) = append(*deps.slot(r.Kind), ent)
	}
	e.Dependencies = deps
	return e, nil
}

// ExportRefs lists the entity references of a whole export payload: the
// workflow, the trigger's knowledge base and alert recipients, in that
// order. Paths are those of the export JSON.
func ExportRefs(e *Export) []Ref {
	var refs []Ref
	if e.Agent.Definition != nil {
		refs = append(refs, e.Agent.Definition.Refs(defPathInExport)...)
	}
	refs = append(refs, triggerRefs(e.Trigger)...)
	for i, a := range e.AlertConfigs {
		m, ok := a.(map[string]any)
		if !ok {
			continue
		}
		ids, _ := m["recipient_user_ids"].([]any)
		for j, id := range ids {
			if s, ok := id.(string); ok && s != "" {
				refs = append(refs, Ref{Kind: RefUser, ID: s, Path: indexPath(fieldPath(indexPath("alert_configs", i), "recipient_user_ids"), j)})
			}
		}
	}
	return refs
}

const defPathInExport = "agent.definition"

func triggerRefs(t *TriggerSnapshot) []Ref {
	if t == nil || t.KnowledgeBaseID == nil || *t.KnowledgeBaseID == "" || hasPlaceholder(*t.KnowledgeBaseID) {
		return nil
	}
	return []Ref{{Kind: RefKnowledgeBase, ID: *t.KnowledgeBaseID, Path: "trigger.knowledge_base_id"}}
}
