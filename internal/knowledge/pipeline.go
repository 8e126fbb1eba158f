package knowledge

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/agentry/agentry/internal/extract"
	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/knowledge/chunk"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
)

// The indexing pipeline is one durable job per content version: extract,
// chunk, embed, index. Each stage shows in the content's status; the last
// stage swaps the version's chunks into the index in one transaction,
// together with the job that announces the content to new_content agents.
// A process killed anywhere leaves the job to be rescued and run again: every
// stage is repeatable and the swap is keyed by the version.

// IndexArgs indexes one version of a content item.
type IndexArgs struct {
	AccountID string `json:"account_id"`
	ContentID string `json:"content_id"`
	VersionID string `json:"version_id"`
}

// Kind names the job kind.
func (IndexArgs) Kind() string { return "knowledge_index" }

// InsertOpts puts the kind on the background queue.
func (IndexArgs) InsertOpts() river.InsertOpts { return jobs.Background }

// indexAttempts bounds retries of a failing index job (River backs off
// between them).
const indexAttempts = 5

// embedBatch is how many passages go to the embedder at once.
const embedBatch = 64

type indexWorker struct {
	river.WorkerDefaults[IndexArgs]
	s *Service
}

// Work runs the pipeline. A file that cannot yield text fails at once,
// without retries; other failures mark the content failed with the reason
// and are retried with backoff.
func (w *indexWorker) Work(ctx context.Context, job *river.Job[IndexArgs]) error {
	err := w.s.IndexVersion(ctx, job.Args)
	if err == nil || errors.Is(err, errStaleVersion) || errors.Is(err, store.ErrNotFound) {
		return nil
	}
	msg := err.Error()
	_, _ = w.s.repo().SetContentStatus(context.WithoutCancel(ctx), job.Args.ContentID, job.Args.VersionID, ContentFailed, &msg)
	if permanent(err) {
		return river.JobCancel(err)
	}
	return err
}

func permanent(err error) bool {
	return errors.Is(err, extract.ErrMalformed) || errors.Is(err, extract.ErrUnsupported) || errors.Is(err, extract.ErrLimit) ||
		errors.Is(err, errNoText) || errors.Is(err, chunk.ErrOptions)
}

var errNoText = errors.New("no text could be extracted from this content")

// IndexVersion runs the pipeline for one content version (the job's body).
func (s *Service) IndexVersion(ctx context.Context, a IndexArgs) error {
	c, err := s.repo().Content(ctx, a.AccountID, a.ContentID)
	if err != nil {
		return err
	}
	if c.VersionID != a.VersionID {
		return errStaleVersion
	}
	if c.Status == ContentIndexed {
		return nil // a retry of a job that committed
	}
	src, err := s.repo().Source(ctx, a.AccountID, c.SourceID)
	if err != nil {
		return err
	}
	stage := func(st string) error {
		ok, err := s.repo().SetContentStatus(ctx, c.ID, c.VersionID, st, nil)
		if err == nil && !ok {
			return errStaleVersion
		}
		return err
	}
	// Extract.
	if err := stage(ContentExtracting); err != nil {
		return err
	}
	text, err := s.extractText(ctx, c)
	if err != nil {
		return err
	}
	// Chunk.
	if err := stage(ContentChunking); err != nil {
		return err
	}
	pieces, err := chunk.Split(text, chunkOptions(src))
	if err != nil {
		return err
	}
	if len(pieces) == 0 {
		return errNoText
	}
	// Embed and swap in. An embedding migration that switches the source
	// while this job embeds makes the swap refuse the old vectors; the
	// pieces are then embedded again with the source's new model.
	var removed []int64
	var wake func()
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if src, err = s.repo().Source(ctx, a.AccountID, c.SourceID); err != nil {
				return err
			}
		}
		chunks, err := s.embedPieces(ctx, a.AccountID, src, c, pieces, stage)
		if err != nil {
			return err
		}
		// Index: swap the chunks in, with the announcement to new_content agents.
		if err := stage(ContentIndexing); err != nil {
			return err
		}
		if err := s.index.Prepare(ctx, chunks[0].Dims); err != nil {
			return err
		}
		removed, err = s.repo().SwapChunks(ctx, src.ID, c.ID, c.VersionID, src.EmbeddingModel, src.Dimensions, chunks,
			func(tx *sql.Tx, conn *sql.Conn, removed []int64, added []Chunk) error {
				if err := s.index.InTx(ctx, tx, added); err != nil {
					return err
				}
				var err error
				wake, err = s.queue.InsertTx(ctx, tx, conn, FireArgs{AccountID: a.AccountID, ContentID: c.ID, VersionID: c.VersionID},
					&river.InsertOpts{MaxAttempts: 5, UniqueOpts: river.UniqueOpts{ByArgs: true}})
				return err
			})
		if errors.Is(err, errEmbeddingChanged) && attempt < 3 {
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	s.index.Forget(src.ID, removed)
	s.lex.Forget(src.ID, removed)
	wake()
	return nil
}

// embedPieces embeds the pieces with the source's embedder, in batches.
func (s *Service) embedPieces(ctx context.Context, accountID string, src Source, c Content, pieces []chunk.Piece,
	stage func(string) error) ([]Chunk, error) {
	if err := stage(ContentEmbedding); err != nil {
		return nil, err
	}
	emb := s.embedderFor(src)
	chunks := make([]Chunk, len(pieces))
	for start := 0; start < len(pieces); start += embedBatch {
		batch := pieces[start:min(start+embedBatch, len(pieces))]
		texts := make([]string, len(batch))
		for i, p := range batch {
			texts[i] = p.Text
		}
		t0 := time.Now()
		vecs, err := emb.Embed(ctx, llm.CallMeta{AccountID: accountID, Purpose: "knowledge_index"}, texts)
		if err != nil {
			return nil, fmt.Errorf("embedding failed: %w", err)
		}
		took := time.Since(t0).Seconds()
		for i, p := range batch {
			chunks[start+i] = Chunk{AccountID: accountID, SourceID: src.ID, ContentID: c.ID, VersionID: c.VersionID,
				Ordinal: start + i, TextStart: p.Start, TextEnd: p.End, Text: p.Text, Model: emb.Model(), Dims: len(vecs[i]),
				Vector: vecs[i], BatchSize: len(batch), BatchDuration: took}
		}
	}
	return chunks, nil
}

// maxIndexedText bounds the text one content contributes to the index.
const maxIndexedText = extract.DefaultMaxTextBytes

// extractText extracts a version's text, stores it beside the file, and
// returns it.
func (s *Service) extractText(ctx context.Context, c Content) (string, error) {
	if !extract.Supports(c.ContentType) {
		_, err := extract.Extract(ctx, c.ContentType, extract.Source{}, io.Discard)
		if err == nil {
			err = fmt.Errorf("%w: %s is stored but has no text extractor", errNoText, c.ContentType)
		}
		return "", err
	}
	rc, err := s.blobs.Get(ctx, c.BlobKey)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	src := extract.Source{R: rc, Size: -1}
	if extract.NeedsRandomAccess(c.ContentType) {
		f, err := os.CreateTemp("", "agentry-content-*")
		if err != nil {
			return "", err
		}
		defer func() { f.Close(); os.Remove(f.Name()) }()
		n, err := io.Copy(f, rc)
		if err != nil {
			return "", err
		}
		src = extract.Source{R: f, RA: f, Size: n}
	}
	var buf bytes.Buffer
	if _, err := (extract.Limits{MaxTextBytes: maxIndexedText}).Extract(ctx, c.ContentType, src, &buf); err != nil {
		return "", err
	}
	text := buf.String()
	if strings.TrimSpace(text) == "" {
		return "", errNoText
	}
	key := strings.TrimSuffix(c.BlobKey, "original") + "text.txt"
	if _, err := s.blobs.Put(ctx, key, "text/plain; charset=utf-8", strings.NewReader(text)); err != nil {
		return "", fmt.Errorf("store extracted text: %w", err)
	}
	words := len(strings.FieldsFunc(text, unicode.IsSpace))
	var title *string
	if t := firstLine(text); t != "" {
		title = &t
	}
	if err := s.repo().SetContentText(ctx, c.ID, c.VersionID, key, words, len([]rune(text)), title); err != nil {
		return "", err
	}
	return text, nil
}

func firstLine(text string) string {
	for _, l := range strings.SplitN(text, "\n", 20) {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#"))
		if l != "" {
			if r := []rune(l); len(r) > 120 {
				l = string(r[:120])
			}
			return l
		}
	}
	return ""
}
