package runs

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentry/agentry/internal/store"
)

// A run's status is a small state machine, and every change of it goes
// through moveRun, a compare-and-set on the status expected before:
//
//	pending, queued ──► processing ──► completed | failed
//	      │                 │  ▲
//	      │                 ▼  │ (a worker resumes it)
//	      │           waiting_human
//	      └──────────────────┴──► failed   (settled by whoever cancels or times out)
//
// pending, queued and waiting_human are the statuses nobody holds: a
// worker may take the run (to processing) and a cancel may settle it (to
// failed); the database lets exactly one of them win. Only the worker
// holding a processing run moves it on. completed and failed are terminal
// and never left.

// moveRun moves runID from one of the statuses in from to status to, with
// the extra assignments set (whose placeholders are $1…$n for args), and
// returns store.ErrConflict when the run was in none of them — nothing is
// written then. A terminal status in from is refused: it is never left.
func moveRun(ctx context.Context, tx *sql.Tx, runID string, from []string, to, set string, args ...any) error {
	if len(from) == 0 {
		return fmt.Errorf("move run %s to %s: no expected status", runID, to)
	}
	for _, f := range from {
		if RunTerminal(f) {
			return fmt.Errorf("move run %s: %s is terminal and cannot be left", runID, f)
		}
	}
	n := len(args)
	q := `UPDATE runs SET status = $` + strconv.Itoa(n+1)
	if set != "" {
		q += ", " + set
	}
	q += ` WHERE id = $` + strconv.Itoa(n+2) + ` AND status IN (`
	ph := make([]string, len(from))
	all := append(append([]any{}, args...), to, runID)
	for i, f := range from {
		ph[i] = "$" + strconv.Itoa(n+3+i)
		all = append(all, f)
	}
	q += strings.Join(ph, ", ") + ")"
	res, err := tx.ExecContext(ctx, q, all...)
	if err != nil {
		return err
	}
	moved, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if moved != 1 {
		return store.ErrConflict
	}
	return nil
}
