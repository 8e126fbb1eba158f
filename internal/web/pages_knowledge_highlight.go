package web

import (
	"unicode"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/knowledge/lexical"
)

// Highlighting the words a search matched, on the server: a passage is cut
// into segments, those whose word stems to one of the search's terms
// marked, and the template writes each segment as text (html/template
// escapes it) inside <mark> or not. No HTML is ever built from the
// passage. The stems are the full-text index's own (lexical.Terms, a pure
// function of the text), so "libraries" lights up for a query term
// "librari" exactly when the index matched it.

// segment is a run of a passage's text; Hit is "q" for a query term, "f"
// for a term feedback (RM3) added, "" for none.
type segment struct {
	Text string
	Hit  string
}

// highlight cuts text into segments, marking the words whose terms are in
// query (or else in feedback). A run of letters without spaces (Chinese,
// Japanese, Korean) is marked whole when one of its character pairs matches.
func highlight(text string, query, feedback map[string]bool) []segment {
	if len(query) == 0 && len(feedback) == 0 {
		return []segment{{Text: text}}
	}
	var out []segment
	plain := 0 // start of the text not yet emitted
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		start := i
		for i < len(text) {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) {
				break
			}
			i += size
		}
		hit := ""
		for _, t := range lexical.Terms(text[start:i]) {
			if query[t] {
				hit = "q"
				break
			}
			if feedback[t] {
				hit = "f"
			}
		}
		if hit == "" {
			continue
		}
		if plain < start {
			out = append(out, segment{Text: text[plain:start]})
		}
		out = append(out, segment{Text: text[start:i], Hit: hit})
		plain = i
	}
	if plain < len(text) {
		out = append(out, segment{Text: text[plain:]})
	}
	return out
}

func isWordRune(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') ||
		r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
}

// termSet is a set of the search's terms.
func termSet(terms []string) map[string]bool {
	m := make(map[string]bool, len(terms))
	for _, t := range terms {
		m[t] = true
	}
	return m
}
