package agents

import (
	"context"
	"encoding/json"

	def "github.com/agentry/agentry/internal/agents/definition"
)

// Export builds the portable snapshot of an agent (GET /agents/{id}/export):
// its settings and workflow, its trigger with schedules, its extras, and
// the manifest naming every entity the workflow references.
func (s *Service) Export(ctx context.Context, accountID, agentID string) (*def.Export, error) {
	a, d, err := s.Definition(ctx, accountID, agentID)
	if err != nil {
		return nil, err
	}
	in := def.ExportInput{Agent: snapshot(a, d), ExportedAt: s.now(), SoftwareVersion: s.cfg.SoftwareVersion}
	trig, err := s.rows().AgentTrigger(ctx, accountID, agentID)
	if err != nil {
		return nil, err
	}
	if in.Trigger, err = triggerSnapshot(trig); err != nil {
		return nil, err
	}
	var alerts []AlertConfig
	if s.cfg.AlertConfigs != nil {
		if alerts, err = s.cfg.AlertConfigs.OfAgent(ctx, accountID, agentID); err != nil {
			return nil, err
		}
	}
	for _, c := range alerts {
		in.AlertConfigs = append(in.AlertConfigs, withExtra(c.Extra, map[string]any{
			"alert_type": c.AlertType, "threshold": c.Threshold, "distribution_type": c.DistributionType,
			"recipient_user_ids": c.RecipientUserIDs, "cooldown_minutes": c.CooldownMinutes, "enabled": c.Enabled,
		}))
	}
	criteria, err := s.extras().criteria(ctx, accountID, agentID)
	if err != nil {
		return nil, err
	}
	for _, c := range criteria {
		in.EvaluationCriteria = append(in.EvaluationCriteria, withExtra(c.Extra, map[string]any{
			"step_id": c.StepID, "description": c.Description, "evaluation_prompt": c.EvaluationPrompt,
			"pass_threshold": c.PassThreshold, "evaluation_tier": c.EvaluationTier, "evaluation_mode": c.EvaluationMode,
			"expectation_config": c.ExpectationConfig, "max_retries": c.MaxRetries, "retry_on_failure": c.RetryOnFailure,
			"enabled": c.Enabled,
		}))
	}
	var policies []Policy
	if s.cfg.Policies != nil {
		if policies, err = s.cfg.Policies.OfAgent(ctx, accountID, agentID); err != nil {
			return nil, err
		}
	}
	for _, p := range policies {
		in.GovernancePolicies = append(in.GovernancePolicies, withExtra(p.Extra, map[string]any{
			"name": p.Name, "description": p.Description, "policy_type": p.PolicyType, "enabled": p.Enabled,
			"config": p.Config, "knowledge_base_ids": p.KnowledgeBaseIDs,
		}))
	}
	solutions, err := s.extras().agentSolutions(ctx, accountID, agentID)
	if err != nil {
		return nil, err
	}
	for _, sol := range solutions {
		in.Solutions = append(in.Solutions, map[string]any{"name": sol.Name, "description": sol.Description})
	}
	return def.BuildExport(ctx, in, s.describer(accountID))
}

// triggerSnapshot is the `trigger` object of an export: every documented
// key, null when unset, then the stored keys of newer exports.
func triggerSnapshot(t Trigger) (*def.TriggerSnapshot, error) {
	var cfg map[string]any
	if err := json.Unmarshal(t.Config, &cfg); err != nil {
		return nil, err
	}
	str := func(key string) *string {
		if v, ok := cfg[key].(string); ok {
			return &v
		}
		return nil
	}
	allowEmpty, _ := cfg["allow_empty_input"].(bool)
	snap := &def.TriggerSnapshot{
		ID: t.ID, TriggerType: def.TriggerType(t.Type), Name: str("name"), Input: str("input"), InputContentType: str("input_content_type"),
		AllowEmptyInput: &allowEmpty, DefaultInput: str("default_input"), KnowledgeBaseID: str("knowledge_base_id"),
	}
	if m, ok := cfg["metadata_"].(map[string]any); ok {
		snap.Metadata = m
	}
	for _, k := range []string{"name", "input", "input_content_type", "allow_empty_input", "default_input", "metadata_", "knowledge_base_id"} {
		delete(cfg, k)
	}
	if len(cfg) > 0 {
		snap.Extra = cfg
	}
	for _, sc := range t.Schedules {
		snap.Schedules = append(snap.Schedules, withExtra(sc.Extra, map[string]any{
			"cron_expression": sc.CronExpression, "timezone": sc.Timezone, "enabled": sc.Enabled,
		}))
	}
	return snap, nil
}

// withExtra adds the item's kept keys under the known ones (a known key is
// never overwritten) and returns the item as generic JSON values, the form
// the definition package reads references from (alert recipients).
func withExtra(extra json.RawMessage, known map[string]any) map[string]any {
	out := map[string]any{}
	if len(extra) > 0 {
		_ = json.Unmarshal(extra, &out)
	}
	for k, v := range known {
		if raw, ok := v.(json.RawMessage); ok && len(raw) == 0 {
			v = nil
		}
		out[k] = v
	}
	b, err := json.Marshal(out)
	if err != nil {
		return out
	}
	generic := map[string]any{}
	if err := json.Unmarshal(b, &generic); err != nil {
		return out
	}
	return generic
}
