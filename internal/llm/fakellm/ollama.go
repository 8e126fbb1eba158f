package fakellm

import (
	"net/http"
	"sync"
	"testing"
)

// Ollama is a fake Ollama server: GET /api/tags lists the installed
// models set with SetModels, and /v1 speaks the OpenAI protocol like
// NewOpenAI's server (scripted replies, recorded requests; /api/tags is
// not recorded). URL is the origin, as OLLAMA_HOST names it.
type Ollama struct {
	*Server
	mu     sync.Mutex
	models []string
	tags   int
}

// NewOllama starts a fake Ollama with models installed.
func NewOllama(t testing.TB, models ...string) *Ollama {
	o := &Ollama{models: models}
	o.Server = newServer(t, serveOpenAI)
	o.pre = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/api/tags" {
			return false
		}
		o.mu.Lock()
		o.tags++
		list := make([]map[string]any, len(o.models))
		for i, m := range o.models {
			list[i] = map[string]any{"name": m, "model": m, "size": 2019393189, "digest": "0000",
				"details": map[string]any{"format": "gguf", "family": "llama", "families": []string{"llama"},
					"parameter_size": "3.2B", "quantization_level": "Q4_K_M"}}
		}
		o.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"models": list})
		return true
	}
	o.URL = o.srv.URL
	return o
}

// SetModels replaces the installed models.
func (o *Ollama) SetModels(models ...string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.models = models
}

// TagsRequests counts the GET /api/tags requests received.
func (o *Ollama) TagsRequests() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.tags
}
