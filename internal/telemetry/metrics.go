package telemetry

import (
	"context"
	"errors"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
)

// The run-level metrics. They are the process's (one server per process
// in production), registered into each server's registry by Register.
// Every label is bounded: trigger types, statuses, step types, job kinds,
// catalog model ids, purposes, outcomes and alert types are sets the code
// or the operator's catalog fixes; no label ever holds an account, agent
// or run id, or anything a tenant typed.
var (
	runsStarted = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_runs_started_total", Help: "Runs created, by trigger type.",
	}, []string{"trigger"})
	runsFinished = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_runs_finished_total", Help: "Runs ended, by status (completed, failed).",
	}, []string{"status"})
	runDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "agentry_run_duration_seconds", Help: "Runs' time from creation to end (queue, reviews and execution), by status.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400, 86400},
	}, []string{"status"})
	stepDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "agentry_step_duration_seconds", Help: "Step attempts' duration, by step type and status.",
		Buckets: []float64{.0005, .001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
	}, []string{"type", "status"})
	jobWait = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "agentry_job_wait_seconds", Help: "Time jobs waited from being due to being taken by a worker, by kind.",
		Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900},
	}, []string{"kind"})
	jobsWorked = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_jobs_worked_total", Help: "Job attempts this replica worked, by kind and outcome (ok, error).",
	}, []string{"kind", "outcome"})
	jobDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "agentry_job_duration_seconds", Help: "Job attempts' duration on this replica, by kind.",
		Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900},
	}, []string{"kind"})
	modelRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_model_requests_total", Help: "Model calls, by catalog model, operation (chat, embeddings) and outcome (ok, error).",
	}, []string{"model", "operation", "outcome"})
	modelDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "agentry_model_request_duration_seconds", Help: "Model calls' latency, by catalog model and operation.",
		Buckets: []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300},
	}, []string{"model", "operation"})
	modelTokens = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_model_tokens_total", Help: "Tokens of model calls, by catalog model and type (input, output).",
	}, []string{"model", "type"})
	creditsSpent = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_credits_spent_total", Help: "Credits charged for model calls, by purpose (prompt_call, evaluation, knowledge_index…).",
	}, []string{"purpose"})
	evaluations = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_evaluations_total", Help: "Evaluation judgments of step outputs, by outcome (passed, failed, error, skipped).",
	}, []string{"outcome"})
	policyChecks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_policy_checks_total", Help: "Governance checks of runs' input and steps' output, by stage and outcome (allow, flag, block, error).",
	}, []string{"stage", "outcome"})
	inboundMail = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_inbound_mail_total", Help: "Inbound mail, by outcome (accepted, refused) and refusal reason.",
	}, []string{"outcome", "reason"})
	alertsRaised = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_alerts_raised_total", Help: "Alerts raised, by alert type.",
	}, []string{"type"})
	sseStreams = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "agentry_sse_streams_open", Help: "Run event streams (SSE) open on this replica.",
	})
	spansExported = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "agentry_trace_spans_exported_total", Help: "Spans sent to the OTLP endpoint.",
	})
	spansDropped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agentry_trace_spans_dropped_total", Help: "Spans dropped, by reason (queue_full, export_failed, shutdown).",
	}, []string{"reason"})
)

// collectors lists every metric of the package.
func collectors() []prometheus.Collector {
	return []prometheus.Collector{runsStarted, runsFinished, runDuration, stepDuration, jobWait, jobsWorked, jobDuration,
		modelRequests, modelDuration, modelTokens, creditsSpent, evaluations, policyChecks, inboundMail, alertsRaised,
		sseStreams, spansExported, spansDropped}
}

// Register adds the run-level metrics to reg (a server's /metrics).
func Register(reg prometheus.Registerer) error {
	for _, c := range collectors() {
		if err := reg.Register(c); err != nil {
			var dup prometheus.AlreadyRegisteredError
			if !errors.As(err, &dup) {
				return err
			}
		}
	}
	return nil
}

// JobWorked counts one job attempt of kind that waited wait for a worker
// and took took; failed says it returned an error.
func JobWorked(kind string, waited, took float64, failed bool) {
	jobWait.WithLabelValues(kind).Observe(waited)
	jobDuration.WithLabelValues(kind).Observe(took)
	outcome := "ok"
	if failed {
		outcome = "error"
	}
	jobsWorked.WithLabelValues(kind, outcome).Inc()
}

// MailAccepted counts an inbound message queued for an agent.
func MailAccepted(n int) { inboundMail.WithLabelValues("accepted", "").Add(float64(n)) }

// StreamOpened and StreamClosed follow the run event streams open.
func StreamOpened() { sseStreams.Inc() }

// StreamClosed is StreamOpened's counterpart.
func StreamClosed() { sseStreams.Dec() }

// MailRefused counts and logs inbound mail turned away, by reason (one
// the mail area defines: unknown_alias, inbound_paused, flood_shed…).
// The line names the account and agent, never the sender or the message.
func MailRefused(ctx context.Context, reason, accountID, agentID string) {
	inboundMail.WithLabelValues("refused", clip(reason, 64)).Inc()
	ctx = WithLogFields(ctx, LogFields{AccountID: accountID, AgentID: agentID})
	slog.InfoContext(ctx, "mail refused", "reason", reason)
}

// MailShed counts inbound mail turned away in a flood without a record
// or a log line of its own (shedding load must not become load).
func MailShed(reason string) { inboundMail.WithLabelValues("refused", clip(reason, 64)).Inc() }

// Alert is what a raised alert's log line says of it.
type Alert struct {
	Type, ID, AccountID, AgentID, RunID string
}

// AlertRaised counts an alert of a type the alerts area defines and logs it.
func AlertRaised(ctx context.Context, a Alert) {
	alertsRaised.WithLabelValues(clip(a.Type, 64)).Inc()
	ctx = WithLogFields(ctx, LogFields{AccountID: a.AccountID, AgentID: a.AgentID, RunID: a.RunID})
	slog.InfoContext(ctx, "alert raised", "type", a.Type, "alert_id", a.ID)
}
