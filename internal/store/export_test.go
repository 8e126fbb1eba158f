package store

// SetAfterJudgmentsRead makes f run between reading journaled judgments
// and writing them (SQLite), so a test can change the run in between.
func (db *DB) SetAfterJudgmentsRead(f func()) { db.afterJudgmentsRead = f }

// SetAfterResultsWritten makes f run between writing materialized results
// and clearing the runs' marks (SQLite).
func (db *DB) SetAfterResultsWritten(f func()) { db.afterResultsWritten = f }

// AlertsQueries exposes the inbox's queries, for their plans.
func AlertsQueries(accountID string, f AlertFilter) (count, page string, args []any) {
	return alertsQueries(accountID, f)
}
