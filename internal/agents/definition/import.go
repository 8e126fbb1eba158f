package definition

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentry/agentry/internal/agents/definition/canonjson"
)

// ImportMode is which endpoint is importing; it decides what happens to
// unresolved references and to the payload's extras.
type ImportMode string

// Import modes.
const (
	// ModeCreate (POST /agents): the workflow and every extra are applied;
	// unresolved references are errors.
	ModeCreate ImportMode = "create"
	// ModeUpdate (PUT /agents/{id}): only the workflow and agent settings
	// are applied; every extra is reported as skipped.
	ModeUpdate ImportMode = "update"
	// ModePreview (POST /agents/preview-import): nothing is applied;
	// unresolved references are listed, not errors.
	ModePreview ImportMode = "preview"
)

// ImportOptions parameterise Import.
type ImportOptions struct {
	Mode ImportMode
	// EntityRemap substitutes source-account ids by target-account ids in
	// the workflow and trigger before validation.
	EntityRemap map[string]string
	// Trigger is the trigger type the request sets explicitly; it overrides
	// the payload's. Empty: the payload's, else DefaultTrigger.
	Trigger TriggerType
	// AgentID is the agent being replaced (update), to refuse self-calls.
	AgentID string
	// Resolver checks referenced entities; nil skips the check.
	Resolver Resolver
	// ServerRules: see ValidateOptions.
	ServerRules
}

// Imported is a payload that passed validation.
type Imported struct {
	// Export is the payload as submitted, with the remap applied to the
	// workflow and the trigger. For a bare definition it is synthesised
	// (no trigger, no extras).
	Export         *Export
	Shape          PayloadShape
	PayloadVersion *string // export_version claimed; nil for legacy payloads
	Definition     *Definition
	Trigger        TriggerType // effective trigger type
	Extras         Extras      // what to apply (empty on update)
	Skips          []ImportSkip
	Substitutions  []Substitution
	UnusedRemap    []string // entity_remap keys that matched no reference
	Unresolved     []Ref    // preview: references not found in the account
	Warnings       Problems // positioned in Source
	Source         string   // canonical echo of the payload
	Positions      canonjson.Positions
}

// Import parses, remaps and validates an agent_definition payload (an
// export, or a bare definition). It returns *ImportError (answer 422 with
// it) when the payload is unusable, another error only when the Resolver
// fails, and never panics on any input.
func Import(ctx context.Context, payload []byte, opts ImportOptions) (*Imported, error) {
	if opts.Mode == "" {
		opts.Mode = ModeCreate
	}
	v, dups, err := canonjson.Parse(payload)
	if err != nil {
		var se *canonjson.SyntaxError
		if errors.As(err, &se) {
			return nil, syntaxImportError(payload, se)
		}
		return nil, err
	}
	source, positions := canonjson.Print(v)
	var probs Problems
	for _, p := range dups {
		probs.warnf(CodeDuplicateKey, p, "key appears more than once; the last value is used")
	}
	exp, shape, version, defPath := decodePayload(v, &probs)
	def := exp.Agent.Definition

	subs := def.Remap(defPath, opts.EntityRemap)
	subs = append(subs, remapTrigger(exp.Trigger, opts.EntityRemap)...)

	trigger := opts.Trigger
	if trigger == "" && exp.Trigger != nil && exp.Trigger.TriggerType.Known() {
		trigger = exp.Trigger.TriggerType
	}
	if trigger == "" {
		trigger = DefaultTrigger
	}
	if !trigger.Known() {
		probs.errorf(CodeInvalidValue, "", "trigger type %q is not one of %v", trigger, TriggerTypes())
	}
	checkTriggerShape(exp.Trigger, trigger, &probs)

	report, err := Validate(ctx, def, ValidateOptions{
		Trigger: trigger, AgentID: opts.AgentID, Resolver: opts.Resolver,
		BasePath: defPath, CollectUnresolved: opts.Mode == ModePreview, ServerRules: opts.ServerRules,
	})
	if err != nil {
		return nil, err
	}
	probs = append(probs, report.Problems...)
	unresolved := report.Unresolved
	more, err := resolveRefs(ctx, opts, triggerRefs(exp.Trigger), &probs)
	if err != nil {
		return nil, err
	}
	unresolved = append(unresolved, more...)

	probs.Position(positions)
	if errs := probs.Errors(); len(errs) > 0 {
		return nil, newImportError(errs, source)
	}
	extras, skips := sortExtras(exp, def, opts.Mode)
	subs = append(subs, remapRecipients(extras.AlertConfigs, opts.EntityRemap)...)
	unused := unusedRemapKeys(opts.EntityRemap, subs)
	return &Imported{
		Export: exp, Shape: shape, PayloadVersion: version, Definition: def, Trigger: trigger,
		Extras: extras, Skips: skips, Substitutions: subs, UnusedRemap: unused, Unresolved: unresolved,
		Warnings: probs.Warnings(), Source: source, Positions: positions,
	}, nil
}

func remapTrigger(t *TriggerSnapshot, m map[string]string) []Substitution {
	if t == nil || t.KnowledgeBaseID == nil {
		return nil
	}
	old := *t.KnowledgeBaseID
	to, ok := m[old]
	if !ok || to == "" || to == old {
		return nil
	}
	t.KnowledgeBaseID = &to
	return []Substitution{{Ref: Ref{Kind: RefKnowledgeBase, ID: old, Path: "trigger.knowledge_base_id"}, NewID: to}}
}

// remapRecipients applies the remap to alert recipients too: whoever maps
// a source-account user to one of theirs wants the alerts to follow. The
// maps are those of the export, so the substitution shows there as well.
func remapRecipients(alerts []map[string]any, m map[string]string) []Substitution {
	var subs []Substitution
	for i, a := range alerts {
		ids, _ := a["recipient_user_ids"].([]any)
		for j, id := range ids {
			s, _ := id.(string)
			if to, ok := m[s]; ok && to != "" && to != s {
				ids[j] = to
				path := indexPath(fieldPath(indexPath("alert_configs", i), "recipient_user_ids"), j)
				subs = append(subs, Substitution{Ref: Ref{Kind: RefUser, ID: s, Path: path}, NewID: to})
			}
		}
	}
	return subs
}

func unusedRemapKeys(m map[string]string, subs []Substitution) []string {
	used := map[string]bool{}
	for _, s := range subs {
		used[s.ID] = true
	}
	var out []string
	for k := range m {
		if !used[k] {
			out = append(out, k)
		}
	}
	return sortStrings(out)
}

// checkTriggerShape warns about triggers that will not fire usefully.
func checkTriggerShape(t *TriggerSnapshot, effective TriggerType, probs *Problems) {
	if t == nil || t.TriggerType != effective {
		return
	}
	switch effective {
	case TriggerTemplateInput:
		if t.Input == nil || strings.TrimSpace(*t.Input) == "" {
			probs.warnf(CodeTriggerIncomplete, "trigger.input", "template_input trigger has no input template")
		}
	case TriggerSchedule:
		if len(t.Schedules) == 0 {
			probs.warnf(CodeTriggerIncomplete, "trigger.schedules", "schedule trigger has no schedules, so it never fires")
		}
	}
}

// resolveRefs checks references outside the workflow (the trigger's
// knowledge base) with the same rules as Validate.
func resolveRefs(ctx context.Context, opts ImportOptions, refs []Ref, probs *Problems) ([]Ref, error) {
	if opts.Resolver == nil {
		return nil, nil
	}
	var missing []Ref
	for _, r := range refs {
		ok, err := opts.Resolver.Exists(ctx, r.Kind, r.ID)
		if err != nil {
			return nil, fmt.Errorf("checking %s %s: %w", r.Kind, r.ID, err)
		}
		if ok {
			continue
		}
		missing = append(missing, r)
		if opts.Mode != ModePreview {
			probs.errorf(CodeUnresolvedRef, r.Path, "%s %s does not exist in this account", strings.ReplaceAll(string(r.Kind), "_", " "), r.ID)
		}
	}
	return missing, nil
}
