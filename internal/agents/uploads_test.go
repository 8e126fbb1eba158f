package agents

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/extract"
	"github.com/agentry/agentry/internal/extract/extracttest"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

type recordQueue struct{ jobs []river.JobArgs }

func (q *recordQueue) Insert(_ context.Context, args river.JobArgs, _ *river.InsertOpts) (*rivertype.JobRow, error) {
	q.jobs = append(q.jobs, args)
	return &rivertype.JobRow{}, nil
}

func uploadService(t *testing.T, d store.Dialect) (*Service, *blob.Store, *recordQueue, string, string) {
	t.Helper()
	ctx := context.Background()
	db := storetest.Open(t, d)
	_, acct, err := directory.CreateUser(ctx, db, directory.NewUser{Name: "u"})
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := blob.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blobs.Close() })
	q := &recordQueue{}
	s := New(db, blobs, Config{UploadRetention: time.Hour, Queue: q})
	tmpl := "summarizer"
	res, err := s.Create(ctx, CreateInput{AccountID: acct.ID, Name: "a", Template: &tmpl})
	if err != nil {
		t.Fatal(err)
	}
	return s, blobs, q, acct.ID, res.Agent.ID
}

// work runs the extraction job the queue recorded last.
func work(t *testing.T, s *Service, q *recordQueue, attempt, maxAttempts int) error {
	t.Helper()
	args := q.jobs[len(q.jobs)-1].(ExtractArgs)
	w := &extractWorker{s: s}
	return w.Work(context.Background(), &river.Job[ExtractArgs]{JobRow: &rivertype.JobRow{Attempt: attempt, MaxAttempts: maxAttempts}, Args: args})
}

func TestExtractionAndCleanup(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		s, blobs, q, acct, agent := uploadService(t, d)
		u, err := s.StoreUpload(ctx, UploadInput{AccountID: acct, AgentID: agent, Filename: "../../etc/r.pdf", Body: bytes.NewReader(extracttest.PDF("Page one"))})
		if err != nil {
			t.Fatal(err)
		}
		if u.Filename != "r.pdf" || u.ContentType != "application/pdf" || u.Status != UploadProcessing || len(u.SHA256) != 64 ||
			!u.ExpiresAt.After(time.Now().Add(59*time.Minute)) || len(q.jobs) != 1 {
			t.Fatalf("stored %+v, jobs %v", u, q.jobs)
		}
		if err := work(t, s, q, 1, 5); err != nil {
			t.Fatal(err)
		}
		u, _ = s.Upload(ctx, acct, agent, u.ID)
		rc, _ := s.OpenUploadText(ctx, u)
		text, _ := io.ReadAll(rc)
		rc.Close()
		if u.Status != UploadReady || u.Extractor != "pdf" || u.TextChars != int64(len("Page one")) || strings.TrimSpace(string(text)) != "Page one" {
			t.Fatalf("extracted %+v %q", u, text)
		}
		// A retried job whose outcome is recorded does nothing.
		if err := work(t, s, q, 2, 5); err != nil {
			t.Fatal(err)
		}

		// A blob store failure is retried, and fails the upload on the last attempt.
		lost, _ := s.StoreUpload(ctx, UploadInput{AccountID: acct, AgentID: agent, Filename: "x.txt", Body: strings.NewReader("x")})
		if err := blobs.Delete(ctx, lost.BlobKey); err != nil {
			t.Fatal(err)
		}
		if err := work(t, s, q, 1, 2); err == nil {
			t.Fatal("a missing blob was not retried")
		}
		if err := work(t, s, q, 2, 2); err != nil {
			t.Fatal(err)
		}
		if lost, _ = s.Upload(ctx, acct, agent, lost.ID); lost.Status != UploadFailed || !strings.Contains(lost.Error, "text extraction failed") {
			t.Fatalf("last attempt: %+v", lost)
		}

		// Too large: refused, and nothing kept.
		s.cfg.MaxUploadBytes = 10
		if _, err := s.StoreUpload(ctx, UploadInput{AccountID: acct, AgentID: agent, Filename: "big.txt", Body: strings.NewReader(strings.Repeat("x", 11))}); !errors.Is(err, ErrUploadTooLarge) {
			t.Fatalf("too large: %v", err)
		}

		// Expiry: both blobs and the row go.
		s.now = func() time.Time { return store.Now().Add(2 * time.Hour) }
		n, err := s.CleanupExpiredUploads(ctx)
		if err != nil || n != 2 {
			t.Fatalf("cleanup removed %d: %v", n, err)
		}
		for _, key := range []string{u.BlobKey, u.TextKey} {
			if ok, _ := blobs.Exists(ctx, key); ok {
				t.Errorf("%s survived the cleanup", key)
			}
		}
		if _, err := s.uploads().get(ctx, acct, "", u.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("row survived: %v", err)
		}
		if n, _ := s.CleanupExpiredUploads(ctx); n != 0 {
			t.Fatalf("second cleanup removed %d", n)
		}
		// The cleanup runs at least hourly, and faster for short retentions.
		if s.cleanupInterval() != 15*time.Minute {
			t.Fatalf("interval %v", s.cleanupInterval())
		}
		if jobs := PeriodicJobs(s); len(jobs) != 1 {
			t.Fatal("no periodic cleanup")
		}
	})
}

func TestCleanFilename(t *testing.T) {
	for in, want := range map[string]string{
		"report.pdf": "report.pdf", "a/b/c.txt": "c.txt", `C:\Users\x\d.docx`: "d.docx", "": "upload", "..": "upload",
		"bad\x00name\n.txt": "badname.txt", strings.Repeat("é", 200): strings.Repeat("é", 127),
	} {
		if got := cleanFilename(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// A file that passes an extraction limit fails its upload at the first
// attempt (retrying cannot help), with the reason, and keeps no text.
func TestExtractionLimitFailsUpload(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		s, blobs, q, acct, agent := uploadService(t, d)
		s.cfg.ExtractLimits = extract.Limits{MaxDecompressedBytes: 1 << 20}
		bomb := extracttest.PDFWithContent(extracttest.Deflated(extracttest.RepeatReader("(x) Tj ", 1<<20)), "FlateDecode")
		u, err := s.StoreUpload(ctx, UploadInput{AccountID: acct, AgentID: agent, Filename: "bomb.pdf", Body: bytes.NewReader(bomb)})
		if err != nil {
			t.Fatal(err)
		}
		if err := work(t, s, q, 1, 5); err != nil {
			t.Fatalf("a file over the limits was retried: %v", err)
		}
		u, _ = s.Upload(ctx, acct, agent, u.ID)
		if u.Status != UploadFailed || u.Error != "extraction stopped: the PDF's page content exceeds 1 MiB decompressed" || u.TextKey != "" {
			t.Fatalf("%+v", u)
		}
		if ok, _ := blobs.Exists(ctx, uploadKey(acct, u.ID, "text.txt")); ok {
			t.Fatal("the partial text was kept")
		}
	})
}
