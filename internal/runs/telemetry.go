package runs

import (
	"context"

	"github.com/agentry/agentry/internal/telemetry"
)

// A run's telemetry: its trace context is chosen as it is created (in the
// trace of the request, job or step that starts it) and stored with it,
// so whichever replica executes it, and every later attempt, joins the
// same trace; its span, metrics and log lines come from the telemetry
// package, called at the few points a run's life passes through.

// traced returns r, about to be created in ctx, with its trace context.
func traced(ctx context.Context, r Run) Run {
	if r.TraceContext == "" {
		r.TraceContext = string(telemetry.NewRunTrace(ctx))
	}
	return r
}

// inRunTrace returns ctx inside r's span: what a job of the run is
// enqueued from, so the job's span joins the run's trace.
func inRunTrace(ctx context.Context, r Run) context.Context {
	return telemetry.RunTrace(r.TraceContext).Resume(ctx)
}

// runTelemetry names r for its span, log lines and metrics.
func runTelemetry(r Run, agentName string) telemetry.Run {
	return telemetry.Run{ID: r.ID, AgentID: r.AgentID, AgentName: agentName, AccountID: r.AccountID, Trigger: r.TriggerType,
		Trace: telemetry.RunTrace(r.TraceContext), CreatedAt: r.CreatedAt, ChangeID: r.ChangeID, RerunOf: r.RerunOfRunID,
		RegressionID: r.RegressionID}
}

// observeEnd reports an execution's end (or a run settled without one):
// the run's span once it has ended, its metrics and its log line.
func (s *Service) observeEnd(ctx context.Context, r Run, res RunResult) {
	info, ok := telemetry.RunOf(ctx)
	if !ok || info.ID != r.ID {
		info = runTelemetry(r, "")
		if RunTerminal(res.Status) && telemetry.RunTrace(r.TraceContext).TraceID() != "" && s.Agents != nil {
			// Settled outside an execution (a cancel, a review's
			// deadline): the span still names its agent.
			if a, err := s.Agents.ForRun(ctx, r.AccountID, r.AgentID); err == nil {
				info.AgentName = a.Name
			}
		}
	}
	telemetry.RunEnded(ctx, info, telemetry.RunOutcome{Status: res.Status, Error: res.Error, Credits: res.Credits, ErrorCount: res.ErrorCount})
}
