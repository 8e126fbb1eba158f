package llm

import "context"

// Provider is the one interface every model backend implements, and every
// wrapper (Router, Metered) implements again so they compose.
//
// Chat and Stream take the same request; Stream additionally hands deltas to
// fn as they arrive and returns the assembled response (with usage) at the
// end, so callers never have to re-assemble text or tool calls themselves.
// Embed returns ErrUnsupported on backends without embeddings.
type Provider interface {
	Chat(ctx context.Context, req ChatRequest) (*ChatResponse, error)
	Stream(ctx context.Context, req ChatRequest, fn StreamFunc) (*ChatResponse, error)
	Embed(ctx context.Context, req EmbedRequest) (*EmbedResponse, error)
}
