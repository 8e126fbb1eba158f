// Package canonjson owns the JSON plumbing behind agent-definition imports:
// a strict parser that keeps number literals and reports duplicate keys and
// syntax errors with 1-based line/column positions in the raw input, a
// canonical pretty-printer (sorted keys, two-space indent) whose output is the
// same text for the same payload, and a position index mapping every dotted
// path in that canonical text to the line and column of its value.
//
// The import error body of the API points into the canonical echo rather than
// the raw bytes because clients submit the payload inside a larger request
// body whose formatting we never see; a canonical form gives both sides one
// text to agree on.
package canonjson
