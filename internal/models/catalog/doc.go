// Package catalog owns Agentry's model catalog: which models exist, what
// they can do, what they cost in credits and where they are in their
// lifecycle. The built-in data is embedded (data/models.json); operators
// extend or override it with their own file, merged by model id.
//
// Credits: one credit is one millionth of a US dollar (CreditsPerUSD). At
// that scale every published per-token, per-image, per-second and
// per-character price is a whole number of credits, and a price in credits
// per 1,000 tokens reads the same as the vendor's price in dollars per
// million tokens times 1,000 (gpt-4o input, $2.50/M = 2,500 credits/1K).
package catalog

// CreditsPerUSD is the fixed exchange rate between credits and US dollars.
const CreditsPerUSD = 1_000_000
