package client_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
)

func TestDownloadStreams(t *testing.T) {
	isolate(t)
	clientRead := make(chan struct{})
	const chunk = 1 << 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.Error(w, `{"detail":"Attachment not found"}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Disposition", `attachment; filename="out put.pdf"`)
		w.Header().Set("Content-Length", strconv.Itoa(2*chunk))
		_, _ = w.Write(make([]byte, chunk))
		w.(http.Flusher).Flush()
		// The second half is written only once the client has read the
		// first: a client that buffered whole responses would wait forever.
		select {
		case <-clientRead:
		case <-time.After(5 * time.Second):
			return
		}
		_, _ = w.Write(make([]byte, chunk))
	}))
	defer srv.Close()
	c, _ := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey("k"))

	d, err := c.Download(ctx, "/v2/agent-runs/r1/attachments/a1")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.ContentType != "application/pdf" || d.FileName != "out put.pdf" || d.ContentLength != 2*chunk {
		t.Fatalf("download = %+v", d)
	}
	if _, err := io.ReadFull(d.Body, make([]byte, chunk)); err != nil {
		t.Fatal(err)
	}
	close(clientRead)
	n, err := io.Copy(io.Discard, d.Body)
	if err != nil || n != chunk {
		t.Fatalf("rest: %d, %v", n, err)
	}
	if _, err := c.Download(ctx, "/missing"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}
