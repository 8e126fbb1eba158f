// Package offline is Agentry's built-in model and embedder: the defaults
// when no provider is configured, and the backend of every test that must
// not touch the network. Both are deterministic and need no weights.
//
// The model is an offline stand-in, not a language model. It answers from
// the prompt's own text: for a question it returns the sentences of the
// supplied context that the embedder ranks most relevant; asked to
// summarise, it returns the leading sentences; in JSON mode it returns a
// value valid against the requested schema, filled from the prompt where it
// can; offered tools, it calls one only when the user's message names it.
// It streams its answer in word-sized deltas and reports usage with the
// same token estimate the platform uses for pricing.
//
// The embedder is lexical: hashed word unigrams and bigrams plus character
// 3- and 4-grams, with sublinear term frequency, each feature group
// normalised, summed with fixed weights and L2-normalised, at any dimension.
package offline
