// Package runrow is the runs area's tables (runs, run_steps) as other
// areas ask about them: the alerts' detectors, the evaluations (a run's
// steps, the judgments journaled on them), inbound mail (the runs it
// started and parked), the model lifecycle's rollback rules (failed
// runs), and the test support that seeds runs at scale.
//
// It is a package of its own, beside the service, because those areas may
// not import the runs service (archtest's TestAreasDoNotAdapt), and the
// runs area's own tests use the test support (storetest) that seeds runs
// through it. It imports no service: each function takes the caller's
// querier, a pool or the caller's transaction, so a question asked in a
// write is answered in its transaction. Only the runs area (its
// repository and this package) names its tables (archtest's
// TestAreasOwnTheirTables).
package runrow

// Run statuses, as the runs area writes them (runs.RunPending… are these).
const (
	Pending      = "pending"
	Queued       = "queued"
	Processing   = "processing"
	Completed    = "completed"
	Failed       = "failed"
	WaitingHuman = "waiting_human"
)

// Ended reports whether a run status is final.
func Ended(status string) bool { return status == Completed || status == Failed }
