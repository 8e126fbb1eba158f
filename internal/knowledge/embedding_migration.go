package knowledge

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/store"
)

// Embedding migrations re-embed a custom_index source with another model
// and size. The index's "generation" is the source's (embedding_model,
// dimensions) pair, which every chunk row carries too and which queries
// embed with: the migration stages the new vectors beside the live chunks
// (embedding_migration_vectors), then switches in steps of switchBatch
// chunks, each its own short transaction replacing old chunks by copies
// carrying the new vectors (so no write holds the database for long), and
// last flips the source's pair in a small transaction. The vector side
// reads only the generation the source names, so until the flip searches
// use the old vectors with the old model, and after it only the new ones;
// the full-text side sees every passage once at every commit. The new
// in-process graph is built in the job before the flip, never in a
// search. A cancel (before the switch begins) drops the staged vectors
// and leaves the index as it was.

// Errors of migrations the API maps to statuses.
var (
	ErrNotActive error = &fault.Conflict{Err: errors.New("no active embedding migration")}
)

// MigrationRequest starts a migration.
type MigrationRequest struct {
	TargetModel            string
	TargetDims             int
	NotificationRecipients []string
	// RechunkRequested says a chunking override was sent.
	RechunkRequested bool
}

// MigrationArgs runs one migration.
type MigrationArgs struct {
	AccountID   string `json:"account_id"`
	MigrationID string `json:"migration_id"`
}

// Kind names the job kind.
func (MigrationArgs) Kind() string { return "knowledge_embedding_migration" }

// InsertOpts puts the kind on the background queue.
func (MigrationArgs) InsertOpts() river.InsertOpts { return jobs.Background }

// StartMigration validates and enqueues a migration of a source.
func (s *Service) StartMigration(ctx context.Context, accountID, sourceID string, r MigrationRequest) (EmbeddingMigration, error) {
	src, err := s.repo().Source(ctx, accountID, sourceID)
	if err != nil {
		return EmbeddingMigration{}, err
	}
	if src.SourceType != "custom_index" && src.SourceType != "file_uploads" {
		return EmbeddingMigration{}, invalid("source_connection_id", "only custom_index sources can be migrated")
	}
	if r.RechunkRequested {
		return EmbeddingMigration{}, invalid("chunk_size", "re-chunking during a migration is not supported here; migrate with the source's chunking")
	}
	model := r.TargetModel
	if model != OfflineEmbeddingModel {
		m, ok := s.catalog.Get(model)
		if !ok || m.Kind != catalog.KindEmbedding {
			return EmbeddingMigration{}, invalid("target_embedding_model", fmt.Sprintf("%q is not an embedding model of the catalog", model))
		}
		model = m.ID
	}
	if r.TargetDims < 8 || r.TargetDims > 4096 {
		return EmbeddingMigration{}, invalid("target_dimensions", "dimensions are between 8 and 4096")
	}
	if model == src.EmbeddingModel && r.TargetDims == src.Dimensions {
		return EmbeddingMigration{}, invalid("target_embedding_model", "the target model and dimensions are the source's current ones")
	}
	m := EmbeddingMigration{AccountID: accountID, SourceID: sourceID, OldModel: src.EmbeddingModel, OldDims: src.Dimensions,
		TargetModel: model, TargetDims: r.TargetDims, NotificationRecipients: r.NotificationRecipients}
	var wake func()
	m, err = s.repo().createMigration(ctx, m, func(tx *sql.Tx, conn *sql.Conn, m EmbeddingMigration) error {
		var err error
		wake, err = s.queue.InsertTx(ctx, tx, conn, MigrationArgs{AccountID: accountID, MigrationID: m.ID}, &river.InsertOpts{MaxAttempts: 10})
		return err
	})
	if err != nil {
		return m, err
	}
	wake()
	return m, nil
}

// LatestMigration is the source's newest migration, nil when it has none
// (ErrNotFound is an unknown source).
func (s *Service) LatestMigration(ctx context.Context, accountID, sourceID string) (*EmbeddingMigration, error) {
	if _, err := s.repo().Source(ctx, accountID, sourceID); err != nil {
		return nil, err
	}
	m, err := s.repo().latestMigration(ctx, accountID, sourceID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return &m, err
}

// CancelMigration cancels the source's active migration.
func (s *Service) CancelMigration(ctx context.Context, accountID, sourceID string) (EmbeddingMigration, error) {
	latest, err := s.LatestMigration(ctx, accountID, sourceID)
	if err != nil {
		return EmbeddingMigration{}, err
	}
	if latest == nil {
		return EmbeddingMigration{}, ErrNotActive
	}
	m := *latest
	ok, err := s.repo().endEmbeddingMigration(ctx, accountID, m.ID, MigrationCancelled, nil)
	if err != nil {
		return m, err
	}
	if !ok {
		return m, fmt.Errorf("%w: the latest migration is %s", ErrNotActive, m.Status)
	}
	return s.repo().migration(ctx, accountID, m.ID)
}

type migrationWorker struct {
	river.WorkerDefaults[MigrationArgs]
	s *Service
}

// errMigrationStopped ends a migration that was cancelled while it ran.
var errMigrationStopped = errors.New("embedding migration cancelled")

// Work embeds what is not staged yet, then switches. A process that dies
// mid-way resumes from the staged vectors: they are committed per batch.
func (w *migrationWorker) Work(ctx context.Context, job *river.Job[MigrationArgs]) error {
	err := w.s.runMigration(ctx, job.Args)
	if err == nil || errors.Is(err, errMigrationStopped) || errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if ctx.Err() == nil && (job.Attempt >= job.MaxAttempts || errors.Is(err, ErrInvalid)) {
		msg := err.Error()
		_, _ = w.s.repo().endEmbeddingMigration(context.WithoutCancel(ctx), job.Args.AccountID, job.Args.MigrationID, MigrationFailed, &msg)
		return river.JobCancel(err)
	}
	return err
}

// switchBatch is how many chunks one step of a switch replaces: each step
// is its own short write transaction. With 500, another tenant's run
// creation waited up to 1 s behind a step on two loaded cores (SQLite's one
// writer); with 100, about half that.
const switchBatch = 100

// switchMigration moves the source to the new generation in steps (see
// repo.beginEmbeddingSwitch), then builds the new vector graph here, in
// the job, before the final flip, so that no search has to build it. It
// reports false when the migration was cancelled before its switch began.
func (s *Service) switchMigration(ctx context.Context, m EmbeddingMigration) (bool, error) {
	if ok, err := s.repo().beginEmbeddingSwitch(ctx, m); err != nil || !ok {
		return false, err
	}
	var after int64
	for {
		removed, _, ok, err := s.repo().switchEmbeddingBatch(ctx, m, after, switchBatch, func(tx *sql.Tx, added []Chunk) error {
			return s.index.InTx(ctx, tx, added)
		})
		if err != nil || !ok {
			return false, err
		}
		if len(removed) == 0 {
			break
		}
		after = removed[len(removed)-1]
		s.index.Forget(m.SourceID, removed)
		s.lex.Forget(m.SourceID, removed)
	}
	finish := func() error {
		ok, err := s.repo().finishEmbeddingSwitch(ctx, m)
		if err == nil && !ok {
			err = errMigrationStopped
		}
		return err
	}
	if pb, ok := s.index.(prebuilder); ok {
		p, err := pb.Prebuild(ctx, m.SourceID, m.TargetModel, m.TargetDims)
		if err != nil {
			return false, err
		}
		return true, pb.Switch(m.SourceID, p, finish)
	}
	return true, finish()
}

func (s *Service) runMigration(ctx context.Context, a MigrationArgs) error {
	m, err := s.repo().migration(ctx, a.AccountID, a.MigrationID)
	if err != nil {
		return err
	}
	if m.Status == MigrationSwitching {
		// A switch interrupted before its commit changed nothing.
		if err := s.repo().resumeEmbeddingMigration(ctx, m.ID); err != nil {
			return err
		}
		m.Status = MigrationRunning
	}
	if m.Status != MigrationPending && m.Status != MigrationRunning {
		return nil
	}
	src, err := s.repo().Source(ctx, a.AccountID, m.SourceID)
	if err != nil {
		return err
	}
	target := src
	target.EmbeddingModel, target.Dimensions = m.TargetModel, m.TargetDims
	emb := s.embedderFor(target)
	for range 5 { // chunks added while embedding are embedded on the next pass
		// The totals are counted once a pass: a chunk added meanwhile is
		// counted (and embedded) by the next one.
		total, err := s.repo().oldGenerationChunks(ctx, m)
		if err != nil {
			return err
		}
		staged, err := s.repo().countStagedVectors(ctx, m.ID)
		if err != nil {
			return err
		}
		for after := int64(0); ; {
			batch, err := s.repo().unstagedChunks(ctx, m, after, embedBatch)
			if err != nil {
				return err
			}
			if len(batch) == 0 {
				break
			}
			after = batch[len(batch)-1].Seq
			texts := make([]string, len(batch))
			seqs := make([]int64, len(batch))
			for i, c := range batch {
				texts[i], seqs[i] = c.Text, c.Seq
			}
			vecs, err := emb.Embed(ctx, llm.CallMeta{AccountID: a.AccountID, Purpose: "knowledge_embedding_migration"}, texts)
			if err != nil {
				return fmt.Errorf("embedding failed: %w", err)
			}
			for _, v := range vecs {
				if len(v) != m.TargetDims {
					return invalid("target_dimensions", fmt.Sprintf("the model answered %d dimensions, not %d", len(v), m.TargetDims))
				}
			}
			if err := s.repo().stageMigrationVectors(ctx, m.ID, seqs, vecs); err != nil {
				return err
			}
			staged += len(batch) // each was unstaged: a new row
			ok, err := s.repo().migrationProgress(ctx, m.ID, staged, max(total, staged), fmt.Sprintf("embedded %d of %d chunks", staged, total))
			if err != nil {
				return err
			}
			if !ok {
				return errMigrationStopped
			}
		}
		// A source with no chunks yet has nothing to embed: the switch below
		// still moves it to the new model. MigrationProgress also makes a
		// pending migration running, which the switch expects.
		if total, err := s.repo().oldGenerationChunks(ctx, m); err != nil {
			return err
		} else if ok, err := s.repo().migrationProgress(ctx, m.ID, total, total, "switching to the new index"); err != nil || !ok {
			if err == nil {
				err = errMigrationStopped
			}
			return err
		}
		if err := s.index.Prepare(ctx, m.TargetDims); err != nil {
			return err
		}
		done, err := s.switchMigration(ctx, m)
		if errors.Is(err, ErrMigrationIncomplete) {
			if err := s.repo().resumeEmbeddingMigration(ctx, m.ID); err != nil {
				return err
			}
			continue
		}
		if err != nil || done {
			return err
		}
		return errMigrationStopped
	}
	return errors.New("chunks kept arriving during the switch; the migration will try again")
}
