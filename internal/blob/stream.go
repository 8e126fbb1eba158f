package blob

import (
	"context"
	"errors"
	"hash"
	"io"
	"time"
)

// PutStream streams r into key like Put, but never leaves a partial blob:
// a failing reader (a client that went away, a size limit) cancels the
// write, so the blob writer discards what it has, and whatever reached
// the store is deleted. Uploads go through it.
func (s *Store) PutStream(ctx context.Context, key, contentType string, r io.Reader) (int64, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n, err := s.Put(wctx, key, contentType, &abortOnError{r: r, abort: cancel})
	if err != nil {
		// The request's context may be the one that ended: delete on a
		// fresh one.
		dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer dcancel()
		_ = s.Delete(dctx, key)
	}
	return n, err
}

type abortOnError struct {
	r     io.Reader
	abort func()
}

func (a *abortOnError) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		a.abort()
	}
	return n, err
}

// HashLimit passes R through, hashing what passes into H and counting it in
// N, and fails with TooLarge (Over set) once more than Limit bytes came.
type HashLimit struct {
	R        io.Reader
	H        hash.Hash
	Limit    int64
	TooLarge error
	N        int64
	Over     bool
}

func (l *HashLimit) Read(p []byte) (int, error) {
	n, err := l.R.Read(p)
	l.N += int64(n)
	if l.N > l.Limit {
		l.Over = true
		return 0, l.TooLarge
	}
	l.H.Write(p[:n])
	return n, err
}
