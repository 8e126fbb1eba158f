package server

import (
	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/runs"
)

// The runs area's adapters. Evaluations (evals.RunRegressions) and
// governance (governance.RunInputs) take the runs area's repository as it
// is, through interfaces of their own; the alerts area hears of finished
// runs in its own terms.

// finishedRuns tells the alerts area of every run that reached a terminal
// status (runs.Deps.Finished): its detectors read the run's ids, status
// and error.
func finishedRuns(a *alerts.Service) func(runs.Run, runs.RunResult) {
	return func(r runs.Run, res runs.RunResult) {
		a.RunFinished(alerts.FinishedRun{AccountID: r.AccountID, AgentID: r.AgentID, RunID: r.ID, Status: res.Status, Error: res.Error})
	}
}

// runRegressions tells a regression's replay from a production run (the
// runs area's repository): oversightAlerts raises no alert for a replay.
type runRegressions = evals.RunRegressions
