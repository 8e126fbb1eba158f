package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// AssistantTurn is one exchange with the memory-bank assistant.
type AssistantTurn struct {
	ID, AccountID, UserID, UserInput string
	AINote                           *string
	Config                           map[string]any // nil when none was proposed
	Accepted                         *bool
	MemoryBankID                     *string
	CreatedAt                        time.Time
}

const memoryTurnColumns = `id, account_id, user_id, user_input, ai_note, resulting_config, accepted, memory_bank_id, created_at`

func scanMemoryTurn(r store.Scanner) (AssistantTurn, error) {
	var (
		t         AssistantTurn
		note, cfg sql.NullString
		bank      sql.NullString
		accepted  sql.NullBool
	)
	err := r.Scan(&t.ID, &t.AccountID, &t.UserID, &t.UserInput, &note, &cfg, &accepted, &bank, &t.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return t, store.ErrNotFound
	}
	if err != nil {
		return t, err
	}
	t.AINote, t.MemoryBankID = store.StringOrNil(note), store.StringOrNil(bank)
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
func (r repo) AddMemoryAssistantTurn(ctx context.Context, t AssistantTurn) (AssistantTurn, error) {
	t.ID, t.CreatedAt = store.NewID(), store.Now()
	var cfg any
	if t.Config != nil {
		b, _ := json.Marshal(t.Config)
		cfg = string(b)
	}
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO memory_assistant_turns (`+memoryTurnColumns+`) VALUES ($1,$2,$3,$4,$5,$6,NULL,NULL,$7)`,
		t.ID, t.AccountID, t.UserID, t.UserInput, t.AINote, cfg, t.CreatedAt)
	return t, err
}

// AssistantTurn returns one turn of the user in the account.
func (r repo) AssistantTurn(ctx context.Context, accountID, userID, id string) (AssistantTurn, error) {
	return scanMemoryTurn(r.db.R.QueryRowContext(ctx, `SELECT `+memoryTurnColumns+` FROM memory_assistant_turns WHERE account_id = $1 AND user_id = $2 AND id = $3`,
		accountID, userID, id))
}

// MemoryAssistantTurns returns the user's turns, newest first, skipping
// offset and returning at most limit, created at or after since (when not
// zero), and the total.
func (r repo) MemoryAssistantTurns(ctx context.Context, accountID, userID string, since time.Time, offset, limit int) ([]AssistantTurn, int, error) {
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM memory_assistant_turns WHERE account_id = $1 AND user_id = $2 AND created_at >= $3`,
		accountID, userID, since).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := store.All(ctx, r.db.R, scanMemoryTurn, `SELECT `+memoryTurnColumns+` FROM memory_assistant_turns WHERE account_id = $1 AND user_id = $2 AND created_at >= $3
		ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`, accountID, userID, since, limit, offset)
	return out, total, err
}

// claimLapse is how long an accept's claim on a turn holds without being
// completed or released: longer than any accept takes, short enough that
// a claim left by a crashed process does not block the turn for long.
const claimLapse = time.Minute

// ClaimMemoryAssistantTurn claims a turn for accepting its proposal: it
// succeeds once while the turn has no bank and no live claim. store.ErrConflict
// when another accept holds it or the turn was accepted already (the
// caller reads which), store.ErrNotFound when it is not the user's.
func (r repo) ClaimMemoryAssistantTurn(ctx context.Context, accountID, userID, id string) error {
	now := store.Now()
	res, err := r.db.W.ExecContext(ctx, `UPDATE memory_assistant_turns SET claimed_at = $1
		WHERE account_id = $2 AND user_id = $3 AND id = $4 AND memory_bank_id IS NULL
		AND (claimed_at IS NULL OR claimed_at < $5)`, now, accountID, userID, id, now.Add(-claimLapse))
	return r.turnChanged(ctx, res, err, accountID, userID, id)
}

// AcceptMemoryAssistantTurn completes a claimed accept with the bank it
// created or updated.
func (r repo) AcceptMemoryAssistantTurn(ctx context.Context, accountID, userID, id, bankID string) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE memory_assistant_turns SET accepted = TRUE, memory_bank_id = $1, claimed_at = NULL
		WHERE account_id = $2 AND user_id = $3 AND id = $4`, bankID, accountID, userID, id)
	return err
}

// ReleaseMemoryAssistantTurn gives up a claim whose accept failed.
func (r repo) ReleaseMemoryAssistantTurn(ctx context.Context, accountID, userID, id string) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE memory_assistant_turns SET claimed_at = NULL
		WHERE account_id = $1 AND user_id = $2 AND id = $3 AND memory_bank_id IS NULL`, accountID, userID, id)
	return err
}

// DeclineMemoryAssistantTurn records a declined proposal; store.ErrConflict when
// it was accepted (or is being accepted): the bank it made stands.
func (r repo) DeclineMemoryAssistantTurn(ctx context.Context, accountID, userID, id string) error {
	now := store.Now()
	res, err := r.db.W.ExecContext(ctx, `UPDATE memory_assistant_turns SET accepted = FALSE
		WHERE account_id = $1 AND user_id = $2 AND id = $3 AND memory_bank_id IS NULL
		AND (claimed_at IS NULL OR claimed_at < $4)`, accountID, userID, id, now.Add(-claimLapse))
	return r.turnChanged(ctx, res, err, accountID, userID, id)
}

// turnChanged reads the outcome of a conditional update of a turn: nil when
// it changed the turn, store.ErrNotFound when the turn is not the user's, and
// store.ErrConflict when its state refused the change.
func (r repo) turnChanged(ctx context.Context, res sql.Result, err error, accountID, userID, id string) error {
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	if _, err := r.AssistantTurn(ctx, accountID, userID, id); err != nil {
		return err
	}
	return store.ErrConflict
}
