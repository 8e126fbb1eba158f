package runs

import (
	"context"
	"database/sql"
)

// Replays (an extension): a regression run (internal/regressions) runs a
// recorded run's input again on a version of its workflow. The replay is a
// run like any other (durable, billed, cancellable), marked with its
// regression: it raises no alert, sends no mail, and stays out of run
// lists and production metrics. The regression's item for the source run
// records the replay in the transaction that creates it (record, the
// regressions area's write), so however often a crashed regression is
// resumed, a recorded run is replayed once.

// Replay starts the replay of recorded run src on version changeID for
// regression regressionID; record is called in the transaction that
// creates the replay with its id, and its error rolls it back (the
// regressions area answers store.ErrConflict when src already has its
// replay).
func (s *Service) Replay(ctx context.Context, src Run, changeID, regressionID string, record func(ctx context.Context, tx *sql.Tx, replayRunID string) error) (Run, error) {
	run := Run{AccountID: src.AccountID, AgentID: src.AgentID, TriggerType: src.TriggerType, Input: src.Input,
		Metadata: src.Metadata, InputUploadIDs: src.InputUploadIDs, ChangeID: changeID, RegressionID: regressionID}
	return s.createQueuedWith(ctx, run, func(tx *sql.Tx, r Run) error {
		return record(ctx, tx, r.ID)
	})
}
