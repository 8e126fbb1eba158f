package client_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
)

// uploadServer parses the multipart stream as it arrives and answers what it
// saw. firstMiB is closed once a MiB of the file has arrived.
func uploadServer(t *testing.T, hits *atomic.Int32, firstMiB chan struct{}) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		mr, err := r.MultipartReader()
		if err != nil {
			http.Error(w, `{"detail":"not multipart"}`, http.StatusBadRequest)
			return
		}
		out := map[string]any{"chunked": r.ContentLength == -1}
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				http.Error(w, `{"detail":"broken body"}`, http.StatusBadRequest)
				return
			}
			if part.FileName() == "" {
				b, _ := io.ReadAll(part)
				out[part.FormName()] = string(b)
				continue
			}
			h := sha256.New()
			var n int64
			buf := make([]byte, 64<<10)
			signalled := false
			for {
				k, err := part.Read(buf)
				h.Write(buf[:k])
				n += int64(k)
				if n >= 1<<20 && !signalled && firstMiB != nil {
					close(firstMiB)
					signalled = true
				}
				if err != nil {
					break
				}
			}
			out["field"], out["filename"], out["content_type"] = part.FormName(), part.FileName(), part.Header.Get("Content-Type")
			out["size"], out["sha256"] = n, h.Sum(nil)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

type uploadSeen struct {
	Chunked     bool   `json:"chunked"`
	Metadata    string `json:"metadata"`
	Title       string `json:"title"`
	Field       string `json:"field"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	SHA256      []byte `json:"sha256"`
}

// gatedReader yields size bytes, but after the first 2 MiB it waits until
// the server has received a MiB: if the client buffered the body before
// sending, that never happens and the read times out.
type gatedReader struct {
	remaining, produced int64
	gate                chan struct{}
	timedOut            bool
}

func (g *gatedReader) Read(p []byte) (int, error) {
	if g.remaining == 0 {
		return 0, io.EOF
	}
	if g.produced >= 2<<20 && g.gate != nil {
		select {
		case <-g.gate:
			g.gate = nil
		case <-time.After(5 * time.Second):
			g.timedOut = true
			return 0, errors.New("the server saw nothing while the client read 2 MiB: the upload is buffered")
		}
	}
	n := int64(len(p))
	n = min(n, g.remaining)
	for i := range p[:n] {
		p[i] = byte(g.produced + int64(i))
	}
	g.remaining -= n
	g.produced += n
	return int(n), nil
}

func TestUploadStreamsMultipart(t *testing.T) {
	isolate(t)
	var hits atomic.Int32
	gate := make(chan struct{})
	srv := uploadServer(t, &hits, gate)
	c, _ := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey("k"))

	const size = 24 << 20
	src := &gatedReader{remaining: size, gate: gate}
	var progress []int64
	var seen uploadSeen
	err := c.Upload(ctx, "/sources/s1/upload", client.Upload{
		FileName: "report.pdf", ContentType: "application/pdf", Content: src, Size: size,
		Metadata: map[string]string{"author": "Ada", "category": "docs"}, Fields: map[string]string{"title": "Q3"},
		Progress: func(sent, total int64) {
			if total != size {
				t.Errorf("progress total %d", total)
			}
			progress = append(progress, sent)
		},
	}, &seen)
	if err != nil || src.timedOut {
		t.Fatal(err)
	}
	var meta map[string]string
	if json.Unmarshal([]byte(seen.Metadata), &meta) != nil || meta["author"] != "Ada" || seen.Title != "Q3" {
		t.Fatalf("metadata must be a JSON string form field: %+v", seen)
	}
	if seen.Field != "file" || seen.Filename != "report.pdf" || seen.ContentType != "application/pdf" || seen.Size != size || !seen.Chunked {
		t.Fatalf("server saw %+v", seen)
	}
	want := sha256.New()
	_, _ = io.Copy(want, &gatedReader{remaining: size})
	if !bytes.Equal(seen.SHA256, want.Sum(nil)) {
		t.Fatal("the file arrived altered")
	}
	if len(progress) < 2 || progress[len(progress)-1] != size {
		t.Fatalf("progress reports: %d, last %v", len(progress), progress[len(progress)-1:])
	}
}

func TestUploadLimitCheckedBeforeSending(t *testing.T) {
	isolate(t)
	var hits atomic.Int32
	srv := uploadServer(t, &hits, nil)
	c, _ := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey("k"))

	// A declared size over 200 MiB: refused without a request.
	err := c.Upload(ctx, "/u", client.Upload{FileName: "big", Content: &gatedReader{remaining: 1}, Size: client.MaxUploadSize + 1}, nil)
	if !errors.Is(err, client.ErrUploadTooLarge) || hits.Load() != 0 {
		t.Fatalf("declared size: %v, %d requests", err, hits.Load())
	}
	// A file over the limit (sparse, so the test writes nothing): its size
	// is read from the file system, and again nothing is sent.
	path := filepath.Join(t.TempDir(), "huge.bin")
	f, _ := os.Create(path)
	_ = f.Truncate(client.MaxUploadSize + 1)
	defer f.Close()
	if err := c.Upload(ctx, "/u", client.Upload{FileName: "huge.bin", Content: f}, nil); !errors.Is(err, client.ErrUploadTooLarge) || hits.Load() != 0 {
		t.Fatalf("file size: %v, %d requests", err, hits.Load())
	}
	// A file at the limit is fine as far as the size check goes.
	_ = f.Truncate(1 << 20)
	var seen uploadSeen
	if err := c.Upload(ctx, "/u", client.Upload{FileName: "ok.bin", Content: f}, &seen); err != nil || seen.Size != 1<<20 {
		t.Fatalf("small file: %+v, %v", seen, err)
	}
	// Content of unknown size is cut off while streaming at the limit.
	err = c.Upload(ctx, "/u", client.Upload{FileName: "stream", Content: io.MultiReader(&gatedReader{remaining: 3 << 20}), MaxSize: 2 << 20}, nil)
	if !errors.Is(err, client.ErrUploadTooLarge) {
		t.Fatalf("unknown size over the limit: %v", err)
	}
}
