package blob_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/blob"
)

var errTooBig = errors.New("too big")

// PutStream keeps a complete upload and leaves nothing of one whose reader
// failed part way, here by going over a HashLimit.
func TestPutStreamLeavesNoPartialBlob(t *testing.T) {
	ctx := context.Background()
	for _, url := range []string{"file://" + t.TempDir() + "/blobs", "mem://"} {
		s, err := blob.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		body := &blob.HashLimit{R: strings.NewReader("hello"), Limit: 5, H: sha256.New(), TooLarge: errTooBig}
		n, err := s.PutStream(ctx, "ok", "text/plain", body)
		if err != nil || n != 5 || body.Over {
			t.Fatalf("%s: %d %v", url, n, err)
		}
		if got := hex.EncodeToString(body.H.Sum(nil)); got != "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" {
			t.Fatalf("hash %s", got)
		}
		big := &blob.HashLimit{R: &patterned{n: 1 << 20}, Limit: 1000, H: sha256.New(), TooLarge: errTooBig}
		if _, err := s.PutStream(ctx, "big", "application/octet-stream", big); !errors.Is(err, errTooBig) || !big.Over {
			t.Fatalf("%s: over the limit: %v", url, err)
		}
		if ok, err := s.Exists(ctx, "big"); err != nil || ok {
			t.Fatalf("%s: a partial blob stayed: %v %v", url, ok, err)
		}
		rc, err := s.Get(ctx, "ok")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != "hello" {
			t.Fatalf("%s: %q", url, b)
		}
		s.Close()
	}
}
