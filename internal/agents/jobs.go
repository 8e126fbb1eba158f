package agents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/extract"
	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
)

// Job kinds of the area.

// ExtractArgs extracts the text of one upload.
type ExtractArgs struct {
	AccountID string `json:"account_id"`
	UploadID  string `json:"upload_id"`
}

// Kind names the job kind.
func (ExtractArgs) Kind() string { return "agent_input_extract" }

// InsertOpts puts the kind on the background queue.
func (ExtractArgs) InsertOpts() river.InsertOpts { return jobs.Background }

// CleanupArgs deletes expired uploads.
type CleanupArgs struct{}

// Kind names the job kind.
func (CleanupArgs) Kind() string { return "agent_input_cleanup" }

// InsertOpts puts the kind on the background queue.
func (CleanupArgs) InsertOpts() river.InsertOpts { return jobs.Background }

// extractAttempts bounds retries of an extraction that fails for a reason
// other than the file (the blob store unreachable, the process killed).
const extractAttempts = 5

// AddWorkers registers the area's job kinds.
func AddWorkers(w *river.Workers, s *Service) {
	river.AddWorker(w, &extractWorker{s: s})
	river.AddWorker(w, &cleanupWorker{s: s})
}

type extractWorker struct {
	river.WorkerDefaults[ExtractArgs]
	s *Service
}

// Work extracts the text. A file that cannot yield text, or passes the
// extraction limits, ends the upload in failed, with the reason; any other
// failure is retried, and only the last attempt marks the upload failed.
func (w *extractWorker) Work(ctx context.Context, job *river.Job[ExtractArgs]) error {
	s := w.s
	u, err := s.uploads().get(ctx, job.Args.AccountID, "", job.Args.UploadID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // expired and cleaned up before its turn came
	}
	if err != nil {
		return err
	}
	if u.Status != UploadProcessing {
		return nil // a retry of a job whose outcome was recorded
	}
	res, err := s.extractText(ctx, u)
	var fileErr bool
	if errors.Is(err, extract.ErrMalformed) || errors.Is(err, extract.ErrUnsupported) || errors.Is(err, extract.ErrLimit) {
		fileErr = true
	}
	if err != nil && !fileErr && job.Attempt < job.MaxAttempts {
		return err
	}
	if err != nil {
		msg := err.Error()
		if !fileErr {
			msg = "text extraction failed: " + msg
		}
		return s.uploads().finish(ctx, u.AccountID, u.ID, uploadResult{Status: UploadFailed, Error: msg, Extractor: "none"})
	}
	res.Status = UploadReady
	return s.uploads().finish(ctx, u.AccountID, u.ID, res)
}

// extractText writes the text of an upload to its text blob.
func (s *Service) extractText(ctx context.Context, u Upload) (uploadResult, error) {
	if !extract.Supports(u.ContentType) {
		// Passed on as it is (images, audio, video), or unsupported: said
		// without reading the file.
		res, err := extract.Extract(ctx, u.ContentType, extract.Source{}, io.Discard)
		return uploadResult{Extractor: res.Extractor, Note: res.Note}, err
	}
	rc, err := s.blobs.Get(ctx, u.BlobKey)
	if err != nil {
		return uploadResult{}, err
	}
	defer rc.Close()
	src := extract.Source{R: rc, Size: -1}
	if extract.NeedsRandomAccess(u.ContentType) {
		// PDF and DOCX keep their directory at the end of the file: read
		// them from a local copy rather than from the blob store.
		f, err := spool(rc)
		if err != nil {
			return uploadResult{}, err
		}
		defer func() { f.Close(); os.Remove(f.Name()) }()
		st, err := f.Stat()
		if err != nil {
			return uploadResult{}, err
		}
		src = extract.Source{R: f, RA: f, Size: st.Size()}
	}
	key := uploadKey(u.AccountID, u.ID, "text.txt")
	pr, pw := io.Pipe()
	var res extract.Result
	done := make(chan error, 1)
	go func() {
		var err error
		res, err = s.cfg.ExtractLimits.Extract(ctx, u.ContentType, src, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	_, putErr := s.blobs.PutStream(ctx, key, "text/plain; charset=utf-8", pr)
	pr.CloseWithError(errors.New("text blob write ended")) // unblocks the extractor if the write failed first
	if err := <-done; err != nil {
		return uploadResult{}, err
	}
	if putErr != nil {
		return uploadResult{}, fmt.Errorf("store extracted text: %w", putErr)
	}
	out := uploadResult{Extractor: res.Extractor, TextChars: res.Chars, Note: res.Note, TextKey: key}
	if res.Chars == 0 {
		s.deleteBlob(key)
		out.TextKey = ""
	}
	return out, nil
}

func spool(r io.Reader) (*os.File, error) {
	f, err := os.CreateTemp("", "agentry-upload-*")
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

type cleanupWorker struct {
	river.WorkerDefaults[CleanupArgs]
	s *Service
}

// Work deletes expired uploads.
func (w *cleanupWorker) Work(ctx context.Context, _ *river.Job[CleanupArgs]) error {
	_, err := w.s.CleanupExpiredUploads(ctx)
	return err
}

// PeriodicJobs are the area's periodic jobs: the cleanup of expired
// uploads, hourly (more often when uploads are kept less than four hours),
// and once at start.
func PeriodicJobs(s *Service) []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(s.cleanupInterval()), func() (river.JobArgs, *river.InsertOpts) {
			return CleanupArgs{}, nil
		}, &river.PeriodicJobOpts{RunOnStart: true}),
	}
}

func (s *Service) cleanupInterval() time.Duration {
	return min(time.Hour, max(time.Second, s.cfg.UploadRetention/4))
}

func isNotFound(err error) bool { return errors.Is(err, blob.ErrNotFound) }
