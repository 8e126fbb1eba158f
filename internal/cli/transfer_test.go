package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

func TestUploadAndDownloadHelpers(t *testing.T) {
	t.Parallel()
	configDir := t.TempDir()
	payload := bytes.Repeat([]byte("agentry "), 100_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/upload":
			if err := r.ParseMultipartForm(1 << 20); err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			f, h, err := r.FormFile("file")
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			b, _ := io.ReadAll(f)
			_ = json.NewEncoder(w).Encode(map[string]any{"filename": h.Filename, "size": len(b), "metadata": r.FormValue("metadata"),
				"same": bytes.Equal(b, payload)})
		case "/download":
			w.Header().Set("Content-Disposition", `attachment; filename="result.bin"`)
			_, _ = w.Write(payload)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c, err := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey("k"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "notes.txt")
	_ = os.WriteFile(src, payload, 0o600)

	a := &App{Getenv: func(k string) string {
		if k == "SERVICE_CONFIG_DIR" {
			return configDir
		}
		return ""
	}}
	var out, errb bytes.Buffer
	cmd := &cobra.Command{}
	cmd.SetContext(context.Background())
	cmd.SetOut(&out)
	cmd.SetErr(&errb)

	var got struct {
		Filename string `json:"filename"`
		Size     int    `json:"size"`
		Metadata string `json:"metadata"`
		Same     bool   `json:"same"`
	}
	if err := a.uploadFile(cmd, c, "/upload", src, client.Upload{Metadata: map[string]string{"k": "v"}}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Filename != "notes.txt" || got.Size != len(payload) || !got.Same || got.Metadata != `{"k":"v"}` {
		t.Fatalf("upload = %+v", got)
	}
	if err := a.uploadFile(cmd, c, "/upload", filepath.Join(dir, "missing"), client.Upload{}, nil); ExitCode(err) != ExitUsage {
		t.Fatalf("missing file: %v", err)
	}

	dest := filepath.Join(dir, "out.bin")
	if err := a.downloadTo(cmd, c, "/download", dest); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(dest)
	if !bytes.Equal(b, payload) {
		t.Fatal("downloaded file differs")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".part-") {
			t.Fatalf("temporary file left behind: %s", e.Name())
		}
	}
	if err := a.downloadTo(cmd, c, "/download", "-"); err != nil || !bytes.Equal(out.Bytes(), payload) {
		t.Fatalf("download to stdout: %v (%d bytes)", err, out.Len())
	}
	if err := a.downloadTo(cmd, c, "/nothing", filepath.Join(dir, "x")); ExitCode(err) != ExitNotFound {
		t.Fatalf("missing download: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Fatal("a failed download created its destination")
	}
}

func TestPrompt(t *testing.T) {
	t.Parallel()
	var w bytes.Buffer
	r := strings.NewReader("new.example.com\n\n")
	br := bufioReader(r)
	v, err := prompt(&w, br, "SSO domain", "old.example.com")
	if err != nil || v != "new.example.com" || !strings.Contains(w.String(), "[old.example.com]") {
		t.Fatalf("prompt = %q, %v, %q", v, err, w.String())
	}
	if v, _ := prompt(&w, br, "Region", "eu"); v != "eu" {
		t.Fatalf("an empty answer keeps the current value, got %q", v)
	}
}

func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReader(r) }
