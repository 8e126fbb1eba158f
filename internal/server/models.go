package server

import (
	"context"
	"log/slog"
	"strings"

	"github.com/agentry/agentry/internal/models/ollama"
)

// ollamaURL turns --ollama-url into llmconfig's form: "auto" (and empty)
// asks OLLAMA_HOST or the default address, "off" asks nothing.
func ollamaURL(v string) string {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "auto":
		return ""
	case ollama.Off:
		return ollama.Off
	}
	return strings.TrimRight(strings.TrimSpace(v), "/")
}

// logDefaultModel says at start which model answers prompt steps that
// name none, why, and how to change it: with nothing configured that is
// the offline stand-in, which a newcomer must not mistake for a model.
func (s *Server) logDefaultModel() {
	if s.DefaultModels == nil {
		return
	}
	model, reason := s.DefaultModels.Server()
	attrs := []any{"model", model, "because", reason,
		"change", "--default-model (SERVICE_DEFAULT_MODEL), or per account: agentry models default set MODEL"}
	if s.Ollama != nil {
		if found := s.Ollama.Models(); len(found) > 0 {
			attrs = append(attrs, "ollama", s.Ollama.BaseURL(), "ollama_models", strings.Join(found, ","))
		}
	}
	slog.Info("default model", attrs...)
}

// refreshModels asks the local Ollama again when its answer is older
// than a minute (GET /models).
func (s *Server) refreshModels(ctx context.Context) {
	if s.Ollama != nil {
		s.Ollama.RefreshIfStale(ctx)
	}
}
