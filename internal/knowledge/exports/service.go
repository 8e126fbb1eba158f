package exports

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/knowledge/metafilter"
	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/store"
)

// The area's refusals, in the fault vocabulary.
var (
	ErrNotFound       = store.ErrNotFound
	ErrInvalid        = errors.New("invalid export request") // matched by every InvalidError
	ErrConflict error = &fault.Conflict{Err: errors.New("the export is not in a state for this")}
	ErrExpired  error = &fault.Gone{Msg: "The export has expired"}
)

// InvalidError is a 422 naming the field at fault.
type InvalidError struct{ Field, Msg string }

func (e *InvalidError) Error() string { return e.Field + ": " + e.Msg }
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// As reads the refusal as the fault vocabulary's Invalid.
func (e *InvalidError) As(target any) bool {
	t, ok := target.(**fault.Invalid)
	if ok {
		*t = fault.InvalidField(e.Field, e.Msg).Because(e)
	}
	return ok
}

// Limits of the area.
const (
	// DefaultRetention is how long a completed export can be downloaded.
	DefaultRetention = 7 * 24 * time.Hour
	// maxTextBytes bounds the text of one content read into an export.
	maxTextBytes = 20 << 20
	// progressEvery is how many contents pass between progress writes,
	// which are also where a cancel is noticed.
	progressEvery  = 25
	maxQueryFilter = 500
)

// Request is what an estimate or an export covers.
type Request struct {
	Format           string
	DateFrom, DateTo *time.Time
	MetadataFilter   map[string]any
	QueryFilter      *string
}

// Requester names who asked for an export.
type Requester struct{ UserID, UserName string }

// Service runs source exports.
type Service struct {
	db        *store.DB
	repo      repo
	blobs     *blob.Store
	queue     jobs.Enqueuer
	Retention time.Duration
	now       func() time.Time
}

// New builds the service; q takes its export jobs.
func New(db *store.DB, blobs *blob.Store, q jobs.Enqueuer) *Service {
	return &Service{db: db, repo: repo{db}, blobs: blobs, queue: q, Retention: DefaultRetention, now: time.Now}
}

// AddWorkers registers the export job.
func AddWorkers(w *river.Workers, s *Service) { river.AddWorker(w, &exportWorker{s: s}) }

type selection struct {
	filter *metafilter.Filter
	query  string
	dates  knowledge.ExportFilter
}

func (r Request) validate() (selection, error) {
	var sel selection
	switch r.Format {
	case JSONL, CSV, Parquet, Zip:
	default:
		return sel, &InvalidError{"format", "must be one of jsonl, csv, parquet, zip"}
	}
	if r.DateFrom != nil && r.DateTo != nil && r.DateTo.Before(*r.DateFrom) {
		return sel, &InvalidError{"date_to", "is before date_from"}
	}
	f, err := metafilter.Parse(r.MetadataFilter)
	if err != nil {
		return sel, &InvalidError{"metadata_filter", err.Error()}
	}
	if r.QueryFilter != nil {
		if len(*r.QueryFilter) > maxQueryFilter {
			return sel, &InvalidError{"query_filter", fmt.Sprintf("at most %d characters", maxQueryFilter)}
		}
		sel.query = strings.ToLower(*r.QueryFilter)
	}
	sel.filter, sel.dates = f, knowledge.ExportFilter{DateFrom: r.DateFrom, DateTo: r.DateTo}
	return sel, nil
}

func (sel selection) match(c knowledge.Content) bool {
	if sel.query != "" && (c.Title == nil || !strings.Contains(strings.ToLower(*c.Title), sel.query)) {
		return false
	}
	return sel.filter == nil || sel.filter.Match(c.Metadata)
}

// Estimate sizes an export without creating it: the stored text of the
// matching contents, plus what each record adds, scaled by format.
func (s *Service) Estimate(ctx context.Context, accountID, sourceID string, r Request) (int64, error) {
	sel, err := r.validate()
	if err != nil {
		return 0, err
	}
	if _, err := knowledge.LiveSource(ctx, s.db, accountID, sourceID); err != nil {
		return 0, err
	}
	var size int64
	err = knowledge.ExportContents(ctx, s.db, accountID, sourceID, sel.dates, func(c knowledge.Content) error {
		if !sel.match(c) {
			return nil
		}
		text := c.SizeBytes
		if c.TextLength != nil {
			text = int64(*c.TextLength)
		}
		size += text + 400 // ids, times, title, URL and metadata of the record
		return nil
	})
	if err != nil {
		return 0, err
	}
	if r.Format == Parquet {
		size = size * 2 / 5 // columnar and compressed
	}
	return size, nil
}

// Create records an export and enqueues its job in one transaction.
func (s *Service) Create(ctx context.Context, accountID, sourceID string, who Requester, r Request) (SourceExport, error) {
	if _, err := r.validate(); err != nil {
		return SourceExport{}, err
	}
	est, err := s.Estimate(ctx, accountID, sourceID, r)
	if err != nil {
		return SourceExport{}, err
	}
	e := SourceExport{AccountID: accountID, SourceID: sourceID, Format: r.Format, DateFrom: r.DateFrom, DateTo: r.DateTo,
		MetadataFilter: r.MetadataFilter, QueryFilter: r.QueryFilter, EstimatedSizeBytes: &est}
	if who.UserID != "" {
		e.RequestedByUserID = &who.UserID
	}
	if who.UserName != "" {
		e.RequestedByUserName = &who.UserName
	}
	var wake func()
	e, err = s.repo.create(ctx, e, func(tx *sql.Tx, conn *sql.Conn, e SourceExport) error {
		var err error
		wake, err = s.queue.InsertTx(ctx, tx, conn, ExportArgs{AccountID: accountID, SourceID: sourceID, ExportID: e.ID},
			&river.InsertOpts{MaxAttempts: 5})
		return err
	})
	if err != nil {
		return SourceExport{}, err
	}
	wake()
	return e, nil
}

// Get returns an export; a completed one past its expiry reads as expired.
func (s *Service) Get(ctx context.Context, accountID, sourceID, id string) (SourceExport, error) {
	e, err := s.repo.get(ctx, accountID, sourceID, id)
	return s.view(e), err
}

// List returns a page (1-based) of a source's exports, newest first.
func (s *Service) List(ctx context.Context, accountID, sourceID string, page, limit int) ([]SourceExport, int, error) {
	if _, err := knowledge.LiveSource(ctx, s.db, accountID, sourceID); err != nil {
		return nil, 0, err
	}
	out, total, err := s.repo.list(ctx, accountID, sourceID, paging.Offset(page, limit), limit)
	for i := range out {
		out[i] = s.view(out[i])
	}
	return out, total, err
}

// StatusExpired is how a completed export past its expiry reads.
const StatusExpired = "expired"

func (s *Service) view(e SourceExport) SourceExport {
	if e.Status == ExportCompleted && e.ExpiresAt != nil && s.now().After(*e.ExpiresAt) {
		e.Status = StatusExpired
	}
	return e
}

// Cancel stops a pending or running export at its next chunk boundary.
func (s *Service) Cancel(ctx context.Context, accountID, sourceID, id string) (SourceExport, error) {
	e, err := s.Get(ctx, accountID, sourceID, id)
	if err != nil {
		return e, err
	}
	ok, err := s.repo.cancel(ctx, accountID, sourceID, id)
	if err != nil {
		return e, err
	}
	if !ok {
		return e, fmt.Errorf("%w: a %s export cannot be cancelled", ErrConflict, e.Status)
	}
	return s.Get(ctx, accountID, sourceID, id)
}

// Delete soft-deletes an export and removes its file.
func (s *Service) Delete(ctx context.Context, accountID, sourceID, id string) error {
	e, err := s.repo.remove(ctx, accountID, sourceID, id)
	if err != nil {
		return err
	}
	if e.StorageKey != nil {
		if err := s.blobs.Delete(ctx, *e.StorageKey); err != nil {
			slog.Warn("deleting an export's file", "export", id, "err", err)
		}
	}
	return nil
}

// Download opens a completed export's file for streaming.
func (s *Service) Download(ctx context.Context, accountID, sourceID, id string) (io.ReadCloser, SourceExport, error) {
	e, err := s.Get(ctx, accountID, sourceID, id)
	if err != nil {
		return nil, e, err
	}
	switch {
	case e.Status == StatusExpired:
		return nil, e, ErrExpired
	case e.Status != ExportCompleted || e.StorageKey == nil:
		return nil, e, fmt.Errorf("%w: the export is %s, not completed", ErrConflict, e.Status)
	}
	rc, err := s.blobs.Get(ctx, *e.StorageKey)
	return rc, e, err
}

// FileName is the download's file name.
func FileName(e SourceExport) string { return "export-" + e.ID + "." + e.Format }

// ExportArgs writes one export.
type ExportArgs struct {
	AccountID string `json:"account_id"`
	SourceID  string `json:"source_id"`
	ExportID  string `json:"export_id"`
}

// Kind names the job kind.
func (ExportArgs) Kind() string { return "source_export" }

// InsertOpts puts the kind on the background queue.
func (ExportArgs) InsertOpts() river.InsertOpts { return jobs.Background }

type exportWorker struct {
	river.WorkerDefaults[ExportArgs]
	s *Service
}

// An attempt is bounded by the server's job timeout (SERVICE_JOB_TIMEOUT),
// not a longer one of its own: the queue rescues a job running past its
// rescue-after, which must exceed the timeout, or it would run twice.

// errStopped ends an export that was cancelled or deleted while it ran.
var errStopped = errors.New("export cancelled")

// Work writes the export from the start: an attempt that died (a crash, a
// kill -9, a shutdown) is rescued by the queue and simply written again to
// the same key, so nothing half-done is ever marked completed.
func (w *exportWorker) Work(ctx context.Context, job *river.Job[ExportArgs]) error {
	err := w.s.run(ctx, job.Args)
	if err == nil || errors.Is(err, errStopped) || errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if ctx.Err() != nil {
		return err // shutting down: the next attempt resumes
	}
	if job.Attempt >= job.MaxAttempts || errors.Is(err, ErrInvalid) {
		_ = w.s.repo.fail(context.WithoutCancel(ctx), job.Args.AccountID, job.Args.ExportID, err.Error())
		return river.JobCancel(err)
	}
	return err
}

func (s *Service) run(ctx context.Context, a ExportArgs) error {
	e, err := s.repo.get(ctx, a.AccountID, a.SourceID, a.ExportID)
	if err != nil {
		return err
	}
	if e.Status != ExportPending && e.Status != ExportRunning {
		return nil
	}
	sel, err := Request{Format: e.Format, DateFrom: e.DateFrom, DateTo: e.DateTo, MetadataFilter: e.MetadataFilter, QueryFilter: e.QueryFilter}.validate()
	if err != nil {
		return err
	}
	total := 0
	if err := knowledge.ExportContents(ctx, s.db, a.AccountID, a.SourceID, sel.dates, func(c knowledge.Content) error {
		if sel.match(c) {
			total++
		}
		return nil
	}); err != nil {
		return err
	}
	if ok, err := s.repo.start(ctx, a.AccountID, a.ExportID, total); err != nil || !ok {
		if err == nil {
			err = errStopped
		}
		return err
	}
	key := fmt.Sprintf("exports/%s/%s.%s", a.AccountID, a.ExportID, e.Format)
	pr, pw := io.Pipe()
	type written struct {
		n   int
		err error
	}
	done := make(chan written, 1)
	go func() {
		n, err := WriteAll(e.Format, pw, s.records(ctx, a, sel))
		pw.CloseWithError(err)
		done <- written{n, err}
	}()
	size, perr := s.blobs.Put(ctx, key, ContentType(e.Format), pr)
	pr.CloseWithError(errors.Join(perr, io.ErrClosedPipe)) // unblocks the writer if Put stopped early
	res := <-done
	if err := errors.Join(res.err, perr); err != nil {
		_ = s.blobs.Delete(context.WithoutCancel(ctx), key)
		return err
	}
	ok, err := s.repo.finish(ctx, a.AccountID, a.ExportID, key, res.n, size, s.now().Add(s.Retention))
	if err != nil || !ok {
		_ = s.blobs.Delete(context.WithoutCancel(ctx), key) // cancelled or deleted at the last moment
		if err == nil {
			err = errStopped
		}
	}
	return err
}

// records yields the export's records, writing progress (and noticing a
// cancel) every progressEvery contents.
func (s *Service) records(ctx context.Context, a ExportArgs, sel selection) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		n := 0
		stop := errors.New("consumer stopped")
		err := knowledge.ExportContents(ctx, s.db, a.AccountID, a.SourceID, sel.dates, func(c knowledge.Content) error {
			if !sel.match(c) {
				return nil
			}
			text, err := s.text(ctx, c)
			if err != nil {
				return err
			}
			r := Record{ID: c.ID, SourceID: c.SourceID, VersionID: c.VersionID, Version: c.Version, URL: c.ContentURL,
				ContentType: c.ContentType, Status: c.Status, Metadata: c.Metadata, Text: text, CreatedAt: c.CreatedAt,
				UpdatedAt: c.UpdatedAt, PublishedAt: c.PublishedAt}
			if c.Title != nil {
				r.Title = *c.Title
			}
			if !yield(r, nil) {
				return stop
			}
			n++
			if n%progressEvery == 0 {
				ok, err := s.repo.progress(ctx, a.AccountID, a.ExportID, n)
				if err != nil {
					return err
				}
				if !ok {
					return errStopped
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, stop) {
			yield(Record{}, err)
		}
	}
}

// text is a content's extracted text, or for a text file not yet indexed,
// the file itself; at most maxTextBytes of it.
func (s *Service) text(ctx context.Context, c knowledge.Content) (string, error) {
	key := ""
	switch {
	case c.TextKey != nil:
		key = *c.TextKey
	case strings.HasPrefix(c.ContentType, "text/"):
		key = c.BlobKey
	default:
		return "", nil
	}
	rc, err := s.blobs.Get(ctx, key)
	if err != nil {
		return "", fmt.Errorf("reading the text of content %s: %w", c.ID, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxTextBytes))
	return strings.ToValidUTF8(string(b), "\uFFFD"), err
}
