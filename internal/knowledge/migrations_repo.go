package knowledge

// The embedding migrations' SQL: the tables embedding_migrations and
// embedding_migration_vectors are the area's own.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/store"
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

// ErrMigrationActive is a second migration of a source while one is
// active (409).
var ErrMigrationActive error = &fault.Conflict{Msg: "An embedding migration is already active for this source", Err: errors.New("an embedding migration is already active for this source")}

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

func scanMigration(r store.Scanner) (EmbeddingMigration, error) {
	var (
		m               EmbeddingMigration
		msg, fail, rcpt sql.NullString
		started, done   sql.NullTime
	)
	err := r.Scan(&m.ID, &m.AccountID, &m.SourceID, &m.OldModel, &m.OldDims, &m.TargetModel, &m.TargetDims, &m.Status, &m.Phase,
		&m.ProgressCurrent, &m.ProgressTotal, &msg, &fail, &rcpt, &started, &done, &m.CreatedAt, &m.UpdatedAt)
	if err != nil {
		return m, err
	}
	m.ProgressMessage, m.FailureMessage = store.StringOrNil(msg), store.StringOrNil(fail)
	m.StartedAt, m.CompletedAt = store.TimeOrNil(started), store.TimeOrNil(done)
	if rcpt.Valid {
		_ = json.Unmarshal([]byte(rcpt.String), &m.NotificationRecipients)
	}
	m.CreatedAt, m.UpdatedAt = m.CreatedAt.UTC(), m.UpdatedAt.UTC()
	return m, nil
}

// createMigration inserts m as pending unless the source has an active
// migration (ErrMigrationActive), and runs also in the same transaction
// (to enqueue its job).
func (r repo) createMigration(ctx context.Context, m EmbeddingMigration, also func(tx *sql.Tx, conn *sql.Conn, m EmbeddingMigration) error) (EmbeddingMigration, error) {
	m.ID, m.CreatedAt, m.Status, m.Phase = store.NewID(), store.Now(), MigrationPending, "queued"
	m.UpdatedAt = m.CreatedAt
	var rcpt any
	if m.NotificationRecipients != nil {
		rcpt = jsonText(m.NotificationRecipients)
	}
	err := r.db.TxConn(ctx, func(tx *sql.Tx, conn *sql.Conn) error {
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

// latestMigration returns the newest migration of a source.
func (r repo) latestMigration(ctx context.Context, accountID, sourceID string) (EmbeddingMigration, error) {
	return store.One(ctx, r.db.R, scanMigration, `SELECT `+migrationColumns+` FROM embedding_migrations
		WHERE account_id = $1 AND source_id = $2 ORDER BY created_at DESC, id DESC LIMIT 1`, accountID, sourceID)
}

// migration returns one migration of the account.
func (r repo) migration(ctx context.Context, accountID, id string) (EmbeddingMigration, error) {
	return store.One(ctx, r.db.R, scanMigration, `SELECT `+migrationColumns+` FROM embedding_migrations
		WHERE account_id = $1 AND id = $2`, accountID, id)
}

// migrationProgress moves a pending or running migration to running with
// its progress; false once it is neither (cancelled).
func (r repo) migrationProgress(ctx context.Context, id string, current, total int, msg string) (bool, error) {
	now := store.Now()
	return changed(r.db.W.ExecContext(ctx, `UPDATE embedding_migrations SET status = $1, phase = 'embedding', progress_current = $2,
		progress_total = $3, progress_message = $4, started_at = COALESCE(started_at, $5), updated_at = $5
		WHERE id = $6 AND status IN ($7, $1)`, MigrationRunning, current, total, msg, now, id, MigrationPending))
}

// stageMigrationVectors records re-embedded vectors of chunks.
func (r repo) stageMigrationVectors(ctx context.Context, id string, seqs []int64, vecs [][]float32) error {
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		for i, seq := range seqs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO embedding_migration_vectors (migration_id, chunk_seq, embedding)
				VALUES ($1, $2, $3) ON CONFLICT (migration_id, chunk_seq) DO UPDATE SET embedding = excluded.embedding`,
				id, seq, encodeVector(vecs[i])); err != nil {
				return err
			}
		}
		return nil
	})
}

// unstagedChunk is a chunk of the source the migration has not embedded yet.
type unstagedChunk struct {
	Seq  int64
	Text string
}

// oldGenerationChunks counts the chunks of the migration's source still of
// its old model and size: copies of the new generation that a switch
// already made need no embedding.
func (r repo) oldGenerationChunks(ctx context.Context, m EmbeddingMigration) (int, error) {
	var total int
	err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM kb_chunks WHERE account_id = $1 AND source_id = $2
		AND model = $3 AND dims = $4`, m.AccountID, m.SourceID, m.OldModel, m.OldDims).Scan(&total)
	return total, err
}

// unstagedChunks returns up to limit chunks of the migration's old
// generation without a staged vector, in seq order from the seq after on.
// A pass over the source starts at 0 and goes on from its last batch's
// highest seq: starting each batch at 0 again read every chunk staged so
// far, the whole source's text once per batch (12,000 chunks took 88 s).
func (r repo) unstagedChunks(ctx context.Context, m EmbeddingMigration, after int64, limit int) ([]unstagedChunk, error) {
	return store.All(ctx, r.db.R, func(row store.Scanner) (unstagedChunk, error) {
		var u unstagedChunk
		return u, row.Scan(&u.Seq, &u.Text)
	}, `SELECT c.seq, c.text FROM kb_chunks c
		LEFT JOIN embedding_migration_vectors v ON v.migration_id = $1 AND v.chunk_seq = c.seq
		WHERE c.account_id = $2 AND c.source_id = $3 AND c.model = $5 AND c.dims = $6 AND c.seq > $7
		AND v.chunk_seq IS NULL ORDER BY c.seq LIMIT $4`,
		m.ID, m.AccountID, m.SourceID, limit, m.OldModel, m.OldDims, after)
}

// ErrMigrationIncomplete is a switch that found chunks added since the
// last embedding pass: the caller embeds them and tries again.
var ErrMigrationIncomplete = errors.New("chunks were added during the migration")

// The switch to the new generation goes in steps, each its own short
// transaction, so that no write holds the database for long (SQLite has
// one writer: a switch of 67,000 chunks in one transaction once held every
// tenant's writes for 49 s). beginEmbeddingSwitch marks the migration
// switching; switchEmbeddingBatch replaces a batch of old-generation
// chunks by copies carrying their staged vectors (text readers see each
// passage exactly once at every commit; the vector side reads only the
// generation the source names, see repo.SourceVectors);
// finishEmbeddingSwitch moves the source to the new model and size once no
// old chunk is left.

// beginEmbeddingSwitch moves a running migration to switching; false when
// it is no longer running (cancelled).
func (r repo) beginEmbeddingSwitch(ctx context.Context, m EmbeddingMigration) (bool, error) {
	return changed(r.db.W.ExecContext(ctx, `UPDATE embedding_migrations SET status = $1, phase = 'switching', updated_at = $2
		WHERE id = $3 AND status = $4`, MigrationSwitching, store.Now(), m.ID, MigrationRunning))
}

// switchEmbeddingBatch replaces up to limit chunks of the old generation
// by copies carrying their staged vectors, in one transaction, with inTx
// run inside it for an index kept in the database, from the seq after on
// (the last batch's highest: what lies below was switched, and a chunk
// added since has a higher seq). It returns the removed
// seqs and the added chunks (none when no old chunk is left), false when
// the migration is no longer switching, and ErrMigrationIncomplete when a
// chunk has no staged vector (it was added since the last pass).
func (r repo) switchEmbeddingBatch(ctx context.Context, m EmbeddingMigration, after int64, limit int,
	inTx func(tx *sql.Tx, added []Chunk) error) (removed []int64, added []Chunk, ok bool, err error) {
	now := store.Now()
	err = r.db.Tx(ctx, func(tx *sql.Tx) error {
		// The source's lock first: an index job committing meanwhile either
		// lands before (its chunks have no staged vector, so the switch
		// reports ErrMigrationIncomplete) or after.
		if _, _, err := lockSourceEmbedding(ctx, tx, m.SourceID); err != nil {
			return err
		}
		var status string
		if err := tx.QueryRowContext(ctx, `SELECT status FROM embedding_migrations WHERE id = $1`, m.ID).Scan(&status); err != nil {
			return err
		}
		if ok = status == MigrationSwitching; !ok {
			return nil
		}
		rows, err := tx.QueryContext(ctx, `SELECT c.seq, c.id, c.content_id, c.version_id, c.ordinal, c.text_start, c.text_end, c.text,
			v.embedding FROM kb_chunks c LEFT JOIN embedding_migration_vectors v ON v.migration_id = $1 AND v.chunk_seq = c.seq
			WHERE c.account_id = $2 AND c.source_id = $3 AND c.model = $4 AND c.dims = $5 AND c.seq > $7 ORDER BY c.seq LIMIT $6`,
			m.ID, m.AccountID, m.SourceID, m.OldModel, m.OldDims, limit, after)
		if err != nil {
			return err
		}
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
			c.Seq, c.ID = 0, store.NewID()
			c.AccountID, c.SourceID, c.Model, c.Dims, c.Vector = m.AccountID, m.SourceID, m.TargetModel, m.TargetDims, decodeVector(emb)
			added = append(added, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(removed) == 0 {
			return err
		}
		in, args := seqList(removed, 2)
		if _, err := tx.ExecContext(ctx, `DELETE FROM kb_chunks WHERE source_id = $1 AND seq IN (`+in+`)`, append([]any{m.SourceID}, args...)...); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM embedding_migration_vectors WHERE migration_id = $1 AND chunk_seq IN (`+in+`)`,
			append([]any{m.ID}, args...)...); err != nil {
			return err
		}
		if err := r.insertChunks(ctx, tx, added, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE embedding_migrations SET updated_at = $1 WHERE id = $2`, now, m.ID); err != nil {
			return err
		}
		return inTx(tx, added)
	})
	if err != nil || !ok {
		return nil, nil, ok, err
	}
	return removed, added, ok, nil
}

// seqList is the placeholders $first… for seqs and their arguments.
func seqList(seqs []int64, first int) (string, []any) {
	var b strings.Builder
	args := make([]any, len(seqs))
	for i, s := range seqs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "$%d", first+i)
		args[i] = s
	}
	return b.String(), args
}

// finishEmbeddingSwitch moves the source to the new model and size and
// completes the migration, once no chunk of the old generation is left
// (ErrMigrationIncomplete otherwise: one was added meanwhile); false when
// the migration is no longer switching. A small transaction: the chunks
// were switched before it.
func (r repo) finishEmbeddingSwitch(ctx context.Context, m EmbeddingMigration) (ok bool, err error) {
	now := store.Now()
	err = r.db.Tx(ctx, func(tx *sql.Tx) error {
		if _, _, err := lockSourceEmbedding(ctx, tx, m.SourceID); err != nil {
			return err
		}
		var left int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM kb_chunks WHERE account_id = $1 AND source_id = $2 AND model = $3 AND dims = $4`,
			m.AccountID, m.SourceID, m.OldModel, m.OldDims).Scan(&left); err != nil {
			return err
		}
		if left > 0 {
			return ErrMigrationIncomplete
		}
		if ok, err = changed(tx.ExecContext(ctx, `UPDATE embedding_migrations SET status = $1, phase = 'done', progress_current = progress_total,
			completed_at = $2, updated_at = $2 WHERE id = $3 AND status = $4`, MigrationCompleted, now, m.ID, MigrationSwitching)); err != nil || !ok {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sources SET embedding_model = $1, dimensions = $2, updated_at = $3
			WHERE account_id = $4 AND id = $5`, m.TargetModel, m.TargetDims, now, m.AccountID, m.SourceID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM embedding_migration_vectors WHERE migration_id = $1`, m.ID)
		return err
	})
	return ok, err
}

// resumeEmbeddingMigration puts a migration whose switch found new chunks
// back to running.
func (r repo) resumeEmbeddingMigration(ctx context.Context, id string) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE embedding_migrations SET status = $1, phase = 'embedding', updated_at = $2
		WHERE id = $3 AND status = $4`, MigrationRunning, store.Now(), id, MigrationSwitching)
	return err
}

// endEmbeddingMigration cancels (or fails, with a reason) an active
// migration and drops its staged vectors; false when it was not active.
func (r repo) endEmbeddingMigration(ctx context.Context, accountID, id, status string, reason *string) (bool, error) {
	var ok bool
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		now := store.Now()
		var err error
		if ok, err = changed(tx.ExecContext(ctx, `UPDATE embedding_migrations SET status = $1, failure_message = $2, completed_at = $3, updated_at = $3
			WHERE account_id = $4 AND id = $5 AND status IN ($6, $7)`, status, reason, now, accountID, id,
			MigrationPending, MigrationRunning)); err != nil || !ok {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM embedding_migration_vectors WHERE migration_id = $1`, id)
		return err
	})
	return ok, err
}

// countStagedVectors counts a migration's staged vectors.
func (r repo) countStagedVectors(ctx context.Context, id string) (int, error) {
	var n int
	err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM embedding_migration_vectors WHERE migration_id = $1`, id).Scan(&n)
	return n, err
}
