package blob_test

import (
	"context"
	"crypto/sha256"
	"io"
	"runtime"
	"testing"

	"github.com/agentry/agentry/internal/blob"
)

// patterned is a reader of n deterministic bytes that are never all in memory.
type patterned struct{ n, off int64 }

func (p *patterned) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	if rem := p.n - p.off; int64(len(b)) > rem {
		b = b[:rem]
	}
	for i := range b {
		b[i] = byte((p.off + int64(i)) * 31 % 251)
	}
	p.off += int64(len(b))
	return len(b), nil
}

func TestStreamedRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, url := range []string{"file://" + t.TempDir() + "/blobs", "mem://"} {
		s, err := blob.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		const size = 64 << 20
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		n, err := s.Put(ctx, "uploads/a/b.bin", "application/octet-stream", &patterned{n: size})
		if err != nil || n != size {
			t.Fatalf("%s: put %d %v", url, n, err)
		}
		runtime.ReadMemStats(&after)
		// The file store streams through a small buffer; the in-memory
		// store necessarily keeps the object, so only check the former.
		if url != "mem://" && after.HeapAlloc > before.HeapAlloc+16<<20 {
			t.Errorf("%s: heap grew by %d MiB for a 64 MiB upload", url, (after.HeapAlloc-before.HeapAlloc)>>20)
		}
		r, err := s.Get(ctx, "uploads/a/b.bin")
		if err != nil {
			t.Fatal(err)
		}
		got, want := sha256.New(), sha256.New()
		if _, err := io.Copy(got, r); err != nil {
			t.Fatal(err)
		}
		r.Close()
		io.Copy(want, &patterned{n: size})
		if string(got.Sum(nil)) != string(want.Sum(nil)) {
			t.Errorf("%s: content changed in the round trip", url)
		}
		if ok, _ := s.Exists(ctx, "uploads/a/b.bin"); !ok {
			t.Error("exists")
		}
		if err := s.Delete(ctx, "uploads/a/b.bin"); err != nil {
			t.Fatal(err)
		}
		if ok, _ := s.Exists(ctx, "uploads/a/b.bin"); ok {
			t.Error("deleted blob still exists")
		}
		s.Close()
	}
}
