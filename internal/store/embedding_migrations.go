package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// Embedding migration statuses.
const (
	MigrationPending   = "pending"
	MigrationRunning   = "running"
	MigrationSwitching = "switching"
	MigrationCompleted = "completed"
	MigrationFailed    = "failed"
	MigrationCancelled = "cancelled"
)

// ErrMigrationActive is a second migration of a source while one is active.
var ErrMigrationActive = errors.New("an embedding migration is already active for this source")

// EmbeddingMigration re-embeds one source's chunks with another model.
type EmbeddingMigration struct {
	ID, AccountID, SourceID         string
	OldModel                        string
	OldDims                         int
	TargetModel                     string
	TargetDims                      int
	Status, Phase                   string
	ProgressCurrent, ProgressTotal  int
	ProgressMessage, FailureMessage *string
	NotificationRecipients          []string
	StartedAt, CompletedAt          *time.Time
	CreatedAt, UpdatedAt            time.Time
}

const migrationColumns = `id, account_id, source_id, old_model, old_dims, target_model, target_dims, status, phase,
	progress_current, progress_total, progress_message, failure_message, notification_recipients, started_at, completed_at,
	created_at, updated_at`

func scanMigration(r rowScanner) (EmbeddingMigration, error) {
	var (
		m               EmbeddingMigration
		msg, fail, rcpt sql.NullString
		started, done   sql.NullTime
	)
	err := r.Scan(&m.ID, &m.AccountID, &m.SourceID, &m.OldModel, &m.OldDims, &m.TargetModel, &m.TargetDims, &m.Status, &m.Phase,
		&m.ProgressCurrent, &m.ProgressTotal, &msg, &fail, &rcpt, &started, &done, &m.CreatedAt, &m.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return m, ErrNotFound
	}
	if err != nil {
		return m, err
	}
	m.ProgressMessage, m.FailureMessage = nullStr(msg), nullStr(fail)
	m.StartedAt, m.CompletedAt = nullTime(started), nullTime(done)
	if rcpt.Valid {
		_ = json.Unmarshal([]byte(rcpt.String), &m.NotificationRecipients)
	}
	m.CreatedAt, m.UpdatedAt = m.CreatedAt.UTC(), m.UpdatedAt.UTC()
	return m, nil
}

// CreateEmbeddingMigration inserts m as pending unless the source has an
// active migration (ErrMigrationActive), and runs also in the same
// transaction (to enqueue its job).
func (db *DB) CreateEmbeddingMigration(ctx context.Context, m EmbeddingMigration, also func(tx *sql.Tx, conn *sql.Conn, m EmbeddingMigration) error) (EmbeddingMigration, error) {
	m.ID, m.CreatedAt, m.Status, m.Phase = NewID(), Now(), MigrationPending, "queued"
	m.UpdatedAt = m.CreatedAt
	var rcpt any
	if m.NotificationRecipients != nil {
		rcpt = jsonText(m.NotificationRecipients)
	}
	err := db.TxConn(ctx, func(tx *sql.Tx, conn *sql.Conn) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM embedding_migrations WHERE account_id = $1 AND source_id = $2
			AND status IN ($3, $4, $5)`, m.AccountID, m.SourceID, MigrationPending, MigrationRunning, MigrationSwitching).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return ErrMigrationActive
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO embedding_migrations (id, account_id, source_id, old_model, old_dims,
			target_model, target_dims, status, phase, progress_current, progress_total, notification_recipients, created_at, updated_at)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,0,$10,$11,$12,$12)`, m.ID, m.AccountID, m.SourceID, m.OldModel, m.OldDims,
			m.TargetModel, m.TargetDims, m.Status, m.Phase, m.ProgressTotal, rcpt, m.CreatedAt); err != nil {
			return err
		}
		return also(tx, conn, m)
	})
	return m, err
}

// LatestEmbeddingMigration returns the newest migration of a source.
func (db *DB) LatestEmbeddingMigration(ctx context.Context, accountID, sourceID string) (EmbeddingMigration, error) {
	return scanMigration(db.R.QueryRowContext(ctx, `SELECT `+migrationColumns+` FROM embedding_migrations
		WHERE account_id = $1 AND source_id = $2 ORDER BY created_at DESC, id DESC LIMIT 1`, accountID, sourceID))
}

// EmbeddingMigration returns one migration of the account.
func (db *DB) EmbeddingMigration(ctx context.Context, accountID, id string) (EmbeddingMigration, error) {
	return scanMigration(db.R.QueryRowContext(ctx, `SELECT `+migrationColumns+` FROM embedding_migrations
		WHERE account_id = $1 AND id = $2`, accountID, id))
}

// MigrationProgress moves a pending or running migration to running with
// its progress; false once it is neither (cancelled).
func (db *DB) MigrationProgress(ctx context.Context, id string, current, total int, msg string) (bool, error) {
	now := Now()
	res, err := db.W.ExecContext(ctx, `UPDATE embedding_migrations SET status = $1, phase = 'embedding', progress_current = $2,
		progress_total = $3, progress_message = $4, started_at = COALESCE(started_at, $5), updated_at = $5
		WHERE id = $6 AND status IN ($7, $1)`, MigrationRunning, current, total, msg, now, id, MigrationPending)
	return exportAffected(res, err)
}

// StageMigrationVectors records re-embedded vectors of chunks.
func (db *DB) StageMigrationVectors(ctx context.Context, id string, seqs []int64, vecs [][]float32) error {
	return db.Tx(ctx, func(tx *sql.Tx) error {
		for i, seq := range seqs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO embedding_migration_vectors (migration_id, chunk_seq, embedding)
				VALUES ($1, $2, $3) ON CONFLICT (migration_id, chunk_seq) DO UPDATE SET embedding = excluded.embedding`,
				id, seq, EncodeVector(vecs[i])); err != nil {
				return err
			}
		}
		return nil
	})
}

// UnstagedChunk is a chunk of the source the migration has not embedded yet.
type UnstagedChunk struct {
	Seq  int64
	Text string
}

// UnstagedChunks returns up to limit chunks of the migration's source
// without a staged vector, and how many chunks the source has.
func (db *DB) UnstagedChunks(ctx context.Context, m EmbeddingMigration, limit int) ([]UnstagedChunk, int, error) {
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM kb_chunks WHERE account_id = $1 AND source_id = $2`,
		m.AccountID, m.SourceID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := db.R.QueryContext(ctx, `SELECT c.seq, c.text FROM kb_chunks c
		LEFT JOIN embedding_migration_vectors v ON v.migration_id = $1 AND v.chunk_seq = c.seq
		WHERE c.account_id = $2 AND c.source_id = $3 AND v.chunk_seq IS NULL ORDER BY c.seq LIMIT $4`,
		m.ID, m.AccountID, m.SourceID, limit)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []UnstagedChunk
	for rows.Next() {
		var u UnstagedChunk
		if err := rows.Scan(&u.Seq, &u.Text); err != nil {
			return nil, 0, err
		}
		out = append(out, u)
	}
	return out, total, rows.Err()
}

// ErrMigrationIncomplete is a switch that found chunks added since the
// last embedding pass: the caller embeds them and tries again.
var ErrMigrationIncomplete = errors.New("chunks were added during the migration")

// SwitchEmbeddingMigration swaps the source's chunks for copies carrying
// the staged vectors, and the source's model and size for the targets, in
// one transaction; inTx adds the new chunks to the vector index within it.
// It answers the removed chunks' seqs; false when the migration is no
// longer running (cancelled).
func (db *DB) SwitchEmbeddingMigration(ctx context.Context, m EmbeddingMigration,
	inTx func(tx *sql.Tx, added []Chunk) error) (removed []int64, ok bool, err error) {
	now := Now()
	err = db.Tx(ctx, func(tx *sql.Tx) error {
		// The source's lock first: an index job committing meanwhile either
		// lands before (its chunks have no staged vector, so the switch
		// reports ErrMigrationIncomplete) or after (it sees the new model
		// and embeds again), never in between with vectors of the old size.
		if _, _, err := lockSourceEmbedding(ctx, tx, m.SourceID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE embedding_migrations SET status = $1, phase = 'switching', updated_at = $2
			WHERE id = $3 AND status = $4`, MigrationSwitching, now, m.ID, MigrationRunning)
		if ok, err = exportAffected(res, err); err != nil || !ok {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT c.seq, c.id, c.content_id, c.version_id, c.ordinal, c.text_start, c.text_end, c.text,
			v.embedding FROM kb_chunks c LEFT JOIN embedding_migration_vectors v ON v.migration_id = $1 AND v.chunk_seq = c.seq
			WHERE c.account_id = $2 AND c.source_id = $3 ORDER BY c.seq`, m.ID, m.AccountID, m.SourceID)
		if err != nil {
			return err
		}
		var added []Chunk
		for rows.Next() {
			var c Chunk
			var emb []byte
			if err := rows.Scan(&c.Seq, &c.ID, &c.ContentID, &c.VersionID, &c.Ordinal, &c.TextStart, &c.TextEnd, &c.Text, &emb); err != nil {
				rows.Close()
				return err
			}
			if emb == nil {
				rows.Close()
				return ErrMigrationIncomplete
			}
			removed = append(removed, c.Seq)
			c.Seq, c.ID = 0, NewID()
			c.AccountID, c.SourceID, c.Model, c.Dims, c.Vector = m.AccountID, m.SourceID, m.TargetModel, m.TargetDims, DecodeVector(emb)
			added = append(added, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM kb_chunks WHERE account_id = $1 AND source_id = $2`, m.AccountID, m.SourceID); err != nil {
			return err
		}
		if err := insertChunks(ctx, tx, db.Dialect, added, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sources SET embedding_model = $1, dimensions = $2, updated_at = $3
			WHERE account_id = $4 AND id = $5`, m.TargetModel, m.TargetDims, now, m.AccountID, m.SourceID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE embedding_migrations SET status = $1, phase = 'done', progress_current = progress_total,
			completed_at = $2, updated_at = $2 WHERE id = $3`, MigrationCompleted, now, m.ID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM embedding_migration_vectors WHERE migration_id = $1`, m.ID); err != nil {
			return err
		}
		return inTx(tx, added)
	})
	return removed, ok, err
}

// ResumeEmbeddingMigration puts a migration whose switch found new chunks
// back to running.
func (db *DB) ResumeEmbeddingMigration(ctx context.Context, id string) error {
	_, err := db.W.ExecContext(ctx, `UPDATE embedding_migrations SET status = $1, phase = 'embedding', updated_at = $2
		WHERE id = $3 AND status = $4`, MigrationRunning, Now(), id, MigrationSwitching)
	return err
}

// EndEmbeddingMigration cancels (or fails, with a reason) an active
// migration and drops its staged vectors; false when it was not active.
func (db *DB) EndEmbeddingMigration(ctx context.Context, accountID, id, status string, reason *string) (bool, error) {
	var ok bool
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		now := Now()
		res, err := tx.ExecContext(ctx, `UPDATE embedding_migrations SET status = $1, failure_message = $2, completed_at = $3, updated_at = $3
			WHERE account_id = $4 AND id = $5 AND status IN ($6, $7, $8)`, status, reason, now, accountID, id,
			MigrationPending, MigrationRunning, MigrationSwitching)
		if ok, err = exportAffected(res, err); err != nil || !ok {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM embedding_migration_vectors WHERE migration_id = $1`, id)
		return err
	})
	return ok, err
}

// CountStagedVectors counts a migration's staged vectors.
func (db *DB) CountStagedVectors(ctx context.Context, id string) (int, error) {
	var n int
	err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM embedding_migration_vectors WHERE migration_id = $1`, id).Scan(&n)
	return n, err
}
