package runs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
)

// What the governance input check decided for a run is the run's own
// column (the governance area's records are in internal/governance).

// SetRunGovernanceInput records what the governance input check decided
// for a run (safe, blocked, skipped). With redacted non-nil, a blocked
// run's stored input is replaced by it: the matched data is kept nowhere.
// A run whose input was not stored (its uploads are its input) keeps a
// null input.
func (q *Repo) SetRunGovernanceInput(ctx context.Context, accountID, runID, status string, redacted *string) error {
	if redacted == nil {
		_, err := q.db.W.ExecContext(ctx, `UPDATE runs SET governance_input_status = $1 WHERE id = $2 AND account_id = $3`, status, runID, accountID)
		return err
	}
	return q.db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET governance_input_status = $1,
			input = CASE WHEN input IS NULL THEN NULL ELSE $2 END WHERE id = $3 AND account_id = $4`, status, *redacted, runID, accountID); err != nil {
			return err
		}
		// An e-mail run's input is made of its message; the subject kept in
		// the metadata would keep what was blocked, so it goes too. The
		// sender stays: the blocklist's auto-block reads it, and lists it.
		var raw sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT metadata FROM runs WHERE id = $1 AND account_id = $2`, runID, accountID).Scan(&raw)
		if errors.Is(err, sql.ErrNoRows) || err == nil && !raw.Valid {
			return nil
		}
		if err != nil {
			return err
		}
		var md map[string]any
		if json.Unmarshal([]byte(raw.String), &md) != nil || md["email_subject"] == nil {
			return nil
		}
		md["email_subject"] = WithheldSubject
		b, err := json.Marshal(md)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE runs SET metadata = $1 WHERE id = $2 AND account_id = $3`, string(b), runID, accountID)
		return err
	})
}

// WithheldSubject replaces the e-mail subject in a blocked run's metadata.
const WithheldSubject = "[withheld: the run's input was blocked by a governance policy]"
