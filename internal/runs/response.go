package runs

import (
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/telemetry"
)

// RunResponse is AgentRunResponse: the snapshot GET answers and SSE init
// and done events carry.
type RunResponse struct {
	RunID                 string        `json:"run_id"`
	Status                string        `json:"status"`
	ErrorCount            int           `json:"error_count"`
	Credits               *float64      `json:"credits"`
	Priority              bool          `json:"priority"`
	Input                 *string       `json:"input"`
	Output                *string       `json:"output"`
	OutputContentType     *string       `json:"output_content_type"`
	Attempts              []AttemptView `json:"attempts"`
	Steps                 []StepView    `json:"steps"`
	BlockedPolicies       []any         `json:"blocked_policies"`
	FlaggedPolicies       []any         `json:"flagged_policies"`
	HITLWaitMS            *int64        `json:"hitl_wait_ms"`
	WaitMS                *int64        `json:"wait_ms"`
	GovernanceInputStatus *string       `json:"governance_input_status"`
	GovernanceInputWaitMS *int64        `json:"governance_input_wait_ms"`
	InputScanStatus       *string       `json:"input_scan_status"`
	ScanWaitMS            *int64        `json:"scan_wait_ms"`
	// TraceID is an extension: the id of the run's trace when it was
	// exported (tracing on and the run sampled), absent otherwise.
	TraceID string `json:"trace_id,omitempty" doc:"Extension: the OpenTelemetry trace id of the run, present when the server exports traces and sampled this run. All the run's spans, on every replica and attempt, are in this trace."`
	// ChangeID, RerunOf and RerunFromStep are extensions (docs/versions.md).
	ChangeID      string   `json:"change_id,omitempty" doc:"Extension: the version of the agent's workflow (its change_id) this run executes; absent for runs recorded before versions were kept."`
	RerunOf       string   `json:"rerun_of,omitempty" doc:"Extension: the run this one was rerun from (POST /agents/runs/{run_id}/rerun)."`
	RerunFromStep string   `json:"rerun_from_step,omitempty" doc:"Extension: the step key this rerun ran again from; the steps before it reused the recorded outputs of rerun_of."`
	Reruns        []string `json:"reruns,omitempty" doc:"Extension: the runs rerun from this one (the first 100, oldest first), when reading one run."`
}

// AttemptView is AgentRunAttemptResponse.
type AttemptView struct {
	Status    string   `json:"status"`
	StartedAt *string  `json:"started_at"`
	EndedAt   *string  `json:"ended_at"`
	Duration  *float64 `json:"duration"`
	Error     *string  `json:"error"`
}

// StepView is AgentRunStepResponse.
type StepView struct {
	AgentStepID       string          `json:"agent_step_id"`
	StepType          string          `json:"step_type"`
	Status            string          `json:"status"`
	Input             *string         `json:"input"`
	Output            *string         `json:"output"`
	OutputContentType *string         `json:"output_content_type"`
	StartedAt         *string         `json:"started_at"`
	EndedAt           *string         `json:"ended_at"`
	DurationSeconds   *float64        `json:"duration_seconds"`
	CreditsUsed       float64         `json:"credits_used"`
	ToolCalls         json.RawMessage `json:"tool_calls"`
	// Reused is an extension (docs/versions.md#reruns).
	Reused bool `json:"reused,omitempty" doc:"Extension: a rerun reused this step's recorded output from the run it reruns; it was not executed (nor billed) again."`
}

func ts(t time.Time) *string {
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

func optTS(t *time.Time) *string {
	if t == nil {
		return nil
	}
	return ts(*t)
}

func seconds(a time.Time, b *time.Time) *float64 {
	if b == nil {
		return nil
	}
	d := b.Sub(a).Seconds()
	return &d
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// PolicyRef is GovernancePolicyRefResponse.
type PolicyRef struct {
	PolicyID   string  `json:"policy_id"`
	PolicyName *string `json:"policy_name"`
}

// verdicts are the policies that blocked and flagged something in a run.
type verdicts struct{ blocked, flagged []PolicyRef }

func policyRefs(in []PolicyRef) []any {
	out := make([]any, 0, len(in))
	for _, p := range in {
		out = append(out, p)
	}
	return out
}

// snapshot renders a run, with its step attempts when steps is non-nil.
func snapshot(r Run, attempts []RunAttempt, steps []StepRow, gov verdicts) RunResponse {
	credits := r.Credits
	hitl, wait := r.HITLWaitMS, r.WaitMS
	out := RunResponse{RunID: r.ID, Status: r.Status, ErrorCount: r.ErrorCount, Credits: &credits, Priority: r.Priority,
		Input: r.Input, Output: r.Output, OutputContentType: r.OutputContentType, Attempts: []AttemptView{},
		HITLWaitMS: &hitl, WaitMS: &wait,
		TraceID:         telemetry.RunTrace(r.TraceContext).TraceID(),
		BlockedPolicies: policyRefs(gov.blocked), FlaggedPolicies: policyRefs(gov.flagged),
		GovernanceInputStatus: strPtr(r.GovernanceInputStatus),
		ChangeID:              r.ChangeID, RerunOf: r.RerunOfRunID, RerunFromStep: r.RerunFromStep}
	for _, a := range attempts {
		out.Attempts = append(out.Attempts, AttemptView{Status: a.Status, StartedAt: ts(a.StartedAt), EndedAt: optTS(a.EndedAt),
			Duration: seconds(a.StartedAt, a.EndedAt), Error: strPtr(a.Error)})
	}
	if steps != nil {
		out.Steps = []StepView{}
		for _, s := range steps {
			in, o := s.Input, s.Output
			v := StepView{AgentStepID: s.StepID, StepType: s.StepType, Status: s.Status, Input: &in, Output: &o,
				OutputContentType: strPtr(s.ContentType), StartedAt: ts(s.StartedAt), EndedAt: optTS(s.EndedAt),
				DurationSeconds: seconds(s.StartedAt, s.EndedAt), CreditsUsed: s.Credits, ToolCalls: s.ToolCalls,
				Reused: isReused(r, s)}
			if s.Status == "failed" && s.Error != "" {
				e := s.Error
				v.Output = &e
			}
			if len(v.ToolCalls) == 0 {
				v.ToolCalls = json.RawMessage("[]")
			}
			out.Steps = append(out.Steps, v)
		}
	}
	return out
}
