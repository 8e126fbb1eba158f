// Package playground owns model playground experiments: one prompt run
// against up to ten models at once, as a durable job, each call metered
// and billed to the experiment, with progress, every model's output,
// latency, tokens and credits, and optionally an evaluator model that
// scores each output between 0 and 1. Experiments can be cancelled (their
// in-flight calls are aborted) and soft-deleted.
package playground
