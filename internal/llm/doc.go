// Package llm owns Agentry's single model interface: chat completions (with
// tools, structured output, streaming and multimodal inputs) and embeddings,
// whatever serves them. Every feature that talks to a model — agent prompt
// steps, evaluations, compaction, assistants, governance checks, the
// playground — goes through a Provider, usually the models/routing Router, usually wrapped in
// billing.Metered so that each call is paid for in credits.
//
// Adapters live in sub-packages (openaicompat, anthropic, offline); the
// providers file that wires them up is read by models/llmconfig. This package
// imports none of them, so they can all depend on it.
package llm
