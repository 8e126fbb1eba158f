package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// MemoryAssistantTurn is one exchange with the memory-bank assistant.
type MemoryAssistantTurn struct {
	ID, AccountID, UserID, UserInput string
	AINote                           *string
	Config                           map[string]any // nil when none was proposed
	Accepted                         *bool
	MemoryBankID                     *string
	CreatedAt                        time.Time
}

const memoryTurnColumns = `id, account_id, user_id, user_input, ai_note, resulting_config, accepted, memory_bank_id, created_at`

func scanMemoryTurn(r rowScanner) (MemoryAssistantTurn, error) {
	var (
		t         MemoryAssistantTurn
		note, cfg sql.NullString
		bank      sql.NullString
		accepted  sql.NullBool
	)
	err := r.Scan(&t.ID, &t.AccountID, &t.UserID, &t.UserInput, &note, &cfg, &accepted, &bank, &t.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return t, ErrNotFound
	}
	if err != nil {
		return t, err
	}
	t.AINote, t.MemoryBankID = StringOrNil(note), StringOrNil(bank)
	if cfg.Valid {
		_ = json.Unmarshal([]byte(cfg.String), &t.Config)
	}
	if accepted.Valid {
		t.Accepted = &accepted.Bool
	}
	t.CreatedAt = t.CreatedAt.UTC()
	return t, nil
}

// AddMemoryAssistantTurn stores a turn.
func (db *DB) AddMemoryAssistantTurn(ctx context.Context, t MemoryAssistantTurn) (MemoryAssistantTurn, error) {
	t.ID, t.CreatedAt = NewID(), Now()
	var cfg any
	if t.Config != nil {
		b, _ := json.Marshal(t.Config)
		cfg = string(b)
	}
	_, err := db.W.ExecContext(ctx, `INSERT INTO memory_assistant_turns (`+memoryTurnColumns+`) VALUES ($1,$2,$3,$4,$5,$6,NULL,NULL,$7)`,
		t.ID, t.AccountID, t.UserID, t.UserInput, t.AINote, cfg, t.CreatedAt)
	return t, err
}

// MemoryAssistantTurn returns one turn of the user in the account.
func (db *DB) MemoryAssistantTurn(ctx context.Context, accountID, userID, id string) (MemoryAssistantTurn, error) {
	return scanMemoryTurn(db.R.QueryRowContext(ctx, `SELECT `+memoryTurnColumns+` FROM memory_assistant_turns WHERE account_id = $1 AND user_id = $2 AND id = $3`,
		accountID, userID, id))
}

// MemoryAssistantTurns returns the user's turns, newest first, skipping
// offset and returning at most limit, created at or after since (when not
// zero), and the total.
func (db *DB) MemoryAssistantTurns(ctx context.Context, accountID, userID string, since time.Time, offset, limit int) ([]MemoryAssistantTurn, int, error) {
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM memory_assistant_turns WHERE account_id = $1 AND user_id = $2 AND created_at >= $3`,
		accountID, userID, since).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := db.R.QueryContext(ctx, `SELECT `+memoryTurnColumns+` FROM memory_assistant_turns WHERE account_id = $1 AND user_id = $2 AND created_at >= $3
		ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`, accountID, userID, since, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []MemoryAssistantTurn{}
	for rows.Next() {
		t, err := scanMemoryTurn(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, t)
	}
	return out, total, rows.Err()
}

// claimLapse is how long an accept's claim on a turn holds without being
// completed or released: longer than any accept takes, short enough that
// a claim left by a crashed process does not block the turn for long.
const claimLapse = time.Minute

// ClaimMemoryAssistantTurn claims a turn for accepting its proposal: it
// succeeds once while the turn has no bank and no live claim. ErrConflict
// when another accept holds it or the turn was accepted already (the
// caller reads which), ErrNotFound when it is not the user's.
func (db *DB) ClaimMemoryAssistantTurn(ctx context.Context, accountID, userID, id string) error {
	now := Now()
	res, err := db.W.ExecContext(ctx, `UPDATE memory_assistant_turns SET claimed_at = $1
		WHERE account_id = $2 AND user_id = $3 AND id = $4 AND memory_bank_id IS NULL
		AND (claimed_at IS NULL OR claimed_at < $5)`, now, accountID, userID, id, now.Add(-claimLapse))
	return db.turnChanged(ctx, res, err, accountID, userID, id)
}

// AcceptMemoryAssistantTurn completes a claimed accept with the bank it
// created or updated.
func (db *DB) AcceptMemoryAssistantTurn(ctx context.Context, accountID, userID, id, bankID string) error {
	_, err := db.W.ExecContext(ctx, `UPDATE memory_assistant_turns SET accepted = TRUE, memory_bank_id = $1, claimed_at = NULL
		WHERE account_id = $2 AND user_id = $3 AND id = $4`, bankID, accountID, userID, id)
	return err
}

// ReleaseMemoryAssistantTurn gives up a claim whose accept failed.
func (db *DB) ReleaseMemoryAssistantTurn(ctx context.Context, accountID, userID, id string) error {
	_, err := db.W.ExecContext(ctx, `UPDATE memory_assistant_turns SET claimed_at = NULL
		WHERE account_id = $1 AND user_id = $2 AND id = $3 AND memory_bank_id IS NULL`, accountID, userID, id)
	return err
}

// DeclineMemoryAssistantTurn records a declined proposal; ErrConflict when
// it was accepted (or is being accepted): the bank it made stands.
func (db *DB) DeclineMemoryAssistantTurn(ctx context.Context, accountID, userID, id string) error {
	now := Now()
	res, err := db.W.ExecContext(ctx, `UPDATE memory_assistant_turns SET accepted = FALSE
		WHERE account_id = $1 AND user_id = $2 AND id = $3 AND memory_bank_id IS NULL
		AND (claimed_at IS NULL OR claimed_at < $4)`, accountID, userID, id, now.Add(-claimLapse))
	return db.turnChanged(ctx, res, err, accountID, userID, id)
}

// turnChanged reads the outcome of a conditional update of a turn: nil when
// it changed the turn, ErrNotFound when the turn is not the user's, and
// ErrConflict when its state refused the change.
func (db *DB) turnChanged(ctx context.Context, res sql.Result, err error, accountID, userID, id string) error {
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	if _, err := db.MemoryAssistantTurn(ctx, accountID, userID, id); err != nil {
		return err
	}
	return ErrConflict
}
