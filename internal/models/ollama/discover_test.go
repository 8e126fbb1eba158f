package ollama

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/routing"
)

func TestBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "http://127.0.0.1:11434",
		"0.0.0.0":               "http://0.0.0.0:11434",
		"gpu-box:8080":          "http://gpu-box:8080",
		"https://ollama.lan":    "https://ollama.lan:11434",
		"http://127.0.0.1:1234": "http://127.0.0.1:1234",
	} {
		if got, err := BaseURL(in); err != nil || got != want {
			t.Errorf("BaseURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := BaseURL("ftp://x"); err == nil {
		t.Error("ftp accepted")
	}
}

// TestRefreshIsCachedAMinute: models pulled since the last question show
// once the answer is a minute old, not before; an Ollama that stops
// takes its models out of the catalog; embedding models never join.
func TestRefreshIsCachedAMinute(t *testing.T) {
	ctx := context.Background()
	o := fakellm.NewOllama(t, "llama3.2:latest", "nomic-embed-text:latest")
	cat, err := catalog.Load() // a catalog of its own: discovery changes it
	if err != nil {
		t.Fatal(err)
	}
	r := routing.NewRouter(cat)
	d := New(o.URL, cat, r)
	now := time.Now()
	d.now = func() time.Time { return now }
	if err := d.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := d.Models(); len(got) != 1 || got[0] != "ollama/llama3.2:latest" || !r.Available("ollama/llama3.2:latest") {
		t.Fatalf("models %v", got)
	}
	if _, ok := cat.Get("ollama/nomic-embed-text:latest"); ok {
		t.Fatal("an embedding model joined the catalog as a chat model")
	}
	o.SetModels("llama3.2:latest", "qwen2.5:7b")
	now = now.Add(59 * time.Second)
	d.RefreshIfStale(ctx)
	if o.TagsRequests() != 1 || len(d.Models()) != 1 {
		t.Fatalf("asked again within the minute: %d asks, %v", o.TagsRequests(), d.Models())
	}
	now = now.Add(2 * time.Second)
	d.RefreshIfStale(ctx)
	if _, ok := cat.Get("ollama/qwen2.5:7b"); !ok || o.TagsRequests() != 2 {
		t.Fatalf("a pulled model did not join after a minute: %d asks, %v", o.TagsRequests(), d.Models())
	}
	o.Close()
	if err := d.Refresh(ctx); err == nil {
		t.Fatal("a stopped Ollama answered")
	}
	if len(d.Models()) != 0 || r.Available("ollama/llama3.2:latest") {
		t.Fatalf("a stopped Ollama's models stayed: %v", d.Models())
	}
}

// TestNoOllamaIsQuick: where nothing listens, the question fails at once.
func TestNoOllamaIsQuick(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cat, _ := catalog.Load()
	d := New("http://"+addr, cat, routing.NewRouter(cat))
	start := time.Now()
	if err := d.Refresh(context.Background()); err == nil {
		t.Fatal("nothing listening, yet an answer")
	}
	if took := time.Since(start); took > DefaultTimeout {
		t.Fatalf("took %v", took)
	}
}
