// Package offline is Agentry's built-in model and embedder: the defaults
// when no provider is configured, and the backend of every test that must
// not touch the network. Both are deterministic and need no weights.
//
// The model is an offline stand-in, not a language model. It separates a
// prompt's instructions (system prompts, template scaffolding, labels),
// which only steer it, from its material, and answers from the material
// alone (material.go): for a question, the sentence the embedder ranks
// closest and of the kind the question word asks for (answer.go); asked to
// summarise or report, the most central sentences; in JSON mode, the keys
// the instructions list or the requested schema, filled by deterministic
// extractors for people, organisations, dates, amounts and contacts
// (extract.go, keys.go, generate.go); asked to grade, a word-overlap score
// it explains, or ErrCannotJudge (judge.go); offered tools, it calls one
// only when the user's message names it. With no material it says so. It
// streams its answer in word-sized deltas and reports usage with the
// same token estimate the platform uses for pricing.
//
// The embedder is lexical: hashed word unigrams and bigrams plus character
// 3- and 4-grams, with sublinear term frequency, each feature group
// normalised, summed with fixed weights and L2-normalised, at any dimension.
package offline
