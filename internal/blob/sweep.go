package blob

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/s3"
)

// A writer killed mid-write (kill -9 during an upload or an export) leaves
// its temporary object behind, and nothing else ever removes it: on a file
// store the "<key>.<hex>.tmp" file the writer renames into place when it
// closes, on an S3-compatible store an incomplete multipart upload, whose
// parts are stored (and billed) but listed nowhere. SweepTemp removes them.

// tempFile is the name the file store gives a blob being written: the final
// path, a dot, the creation time in hexadecimal nanoseconds, ".tmp".
var tempFile = regexp.MustCompile(`\.[0-9a-f]{1,16}\.tmp$`)

// Swept says what one sweep removed.
type Swept struct {
	Files int   // temporary files, or incomplete multipart uploads
	Bytes int64 // their size, where the store tells it (files)
}

// SweepTemp removes the temporary objects of writes that began before
// cutoff and never finished. A writer still at work is younger: on a file
// store its file's modification time moves with every write; on S3 an
// upload's start time does not, so cutoff must leave room for the longest
// write (the sweeper's age is checked against the job timeout). Stores of
// other kinds have nothing to sweep.
func (s *Store) SweepTemp(ctx context.Context, cutoff time.Time) (Swept, error) {
	switch {
	case s.dir != "":
		return sweepDir(ctx, s.dir, true, cutoff, func(name string) bool { return tempFile.MatchString(name) })
	case s.s3 != nil:
		return s.sweepMultipart(ctx, cutoff)
	}
	return Swept{}, nil
}

// SweepLocalTemp removes files in dir whose names start with one of
// prefixes and that were last written before cutoff: the spill files of
// uploads, extraction and exports in the system's temporary directory,
// which a killed process leaves there too.
func SweepLocalTemp(ctx context.Context, dir string, prefixes []string, cutoff time.Time) (Swept, error) {
	return sweepDir(ctx, dir, false, cutoff, func(name string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	})
}

// sweepDir removes the files under root (in root alone unless recurse)
// that match and were last written before cutoff.
func sweepDir(ctx context.Context, root string, recurse bool, cutoff time.Time, match func(name string) bool) (Swept, error) {
	var out Swept
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if path != root && !recurse {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !match(d.Name()) {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			return nil
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		out.Files++
		out.Bytes += info.Size()
		return nil
	})
	return out, err
}

// sweepMultipart aborts the bucket's incomplete multipart uploads (under
// the store's prefix) that started before cutoff.
func (s *Store) sweepMultipart(ctx context.Context, cutoff time.Time) (Swept, error) {
	st := s.s3
	var out Swept
	keyMarker, idMarker := "", ""
	for page := 0; page < 1000; page++ {
		res, err := st.client.ListMultipartUploads(ctx, st.bucket, s.prefix, keyMarker, idMarker)
		if err != nil {
			return out, fmt.Errorf("list multipart uploads: %w", err)
		}
		for _, u := range res.Uploads {
			if !u.Initiated.Before(cutoff) {
				continue
			}
			err := st.client.AbortMultipartUpload(ctx, st.bucket, u.Key, u.UploadID)
			var se *s3.Error
			if errors.As(err, &se) && se.Code == "NoSuchUpload" {
				continue // another replica's sweep, or the writer, got there first
			}
			if err != nil {
				return out, fmt.Errorf("abort multipart upload of %s: %w", u.Key, err)
			}
			out.Files++
		}
		if !res.IsTruncated {
			return out, nil
		}
		keyMarker, idMarker = res.NextKeyMarker, res.NextUploadIDMarker
	}
	return out, nil
}

// Sweeper runs SweepTemp (and SweepLocalTemp on the spill directory) at
// start and then every Interval, removing what is older than MaxAge.
type Sweeper struct {
	Store    *Store
	MaxAge   time.Duration
	Interval time.Duration
	// LocalDir and LocalPrefixes name the process's own spill files.
	LocalDir      string
	LocalPrefixes []string
	// TempDirs are directories of the server's own whose files are
	// written as "<name>.<digits>.tmp" and renamed into place (the vector
	// index snapshots).
	TempDirs []string
	now      func() time.Time
}

// Run sweeps until ctx ends.
func (w *Sweeper) Run(ctx context.Context) {
	if w.MaxAge <= 0 {
		return
	}
	for {
		w.Once(ctx)
		if w.Interval <= 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(w.Interval):
		}
	}
}

// Once sweeps one time, logging what it removed.
func (w *Sweeper) Once(ctx context.Context) {
	now := time.Now
	if w.now != nil {
		now = w.now
	}
	cutoff := now().Add(-w.MaxAge)
	if w.Store != nil {
		n, err := w.Store.SweepTemp(ctx, cutoff)
		if err != nil && ctx.Err() == nil {
			slog.Warn("blob store: sweeping temporary blobs", "err", err)
		}
		if n.Files > 0 {
			slog.Info("blob store: removed temporary blobs of unfinished writes", "count", n.Files, "bytes", n.Bytes, "older_than", w.MaxAge)
		}
	}
	for _, dir := range w.TempDirs {
		n, err := sweepDir(ctx, dir, false, cutoff, func(name string) bool { return tempFile.MatchString(name) })
		if err != nil && ctx.Err() == nil {
			slog.Warn("sweeping temporary files", "dir", dir, "err", err)
		}
		if n.Files > 0 {
			slog.Info("removed temporary files of unfinished work", "dir", dir, "count", n.Files, "bytes", n.Bytes)
		}
	}
	if w.LocalDir != "" && len(w.LocalPrefixes) > 0 {
		n, err := SweepLocalTemp(ctx, w.LocalDir, w.LocalPrefixes, cutoff)
		if err != nil && ctx.Err() == nil {
			slog.Warn("sweeping temporary files", "dir", w.LocalDir, "err", err)
		}
		if n.Files > 0 {
			slog.Info("removed temporary files of unfinished work", "dir", w.LocalDir, "count", n.Files, "bytes", n.Bytes)
		}
	}
}
