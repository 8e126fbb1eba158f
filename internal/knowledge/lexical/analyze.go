package lexical

import (
	"unicode"
	"unicode/utf8"
)

// MaxTermBytes bounds a term: longer runs of letters (base64, hashes) are
// not words anyone searches for, and would only bloat the index.
const MaxTermBytes = 64

// words calls fn with each word of text: lower-cased runs of letters and
// digits, and overlapping pairs of characters within runs of Chinese,
// Japanese and Korean script, which separate no words with spaces (the
// usual bigram indexing of those scripts). A run longer than MaxTermBytes
// is skipped.
func words(text string, fn func(w []byte)) {
	var word []byte
	var prevCJK rune // the previous character of a CJK run, or 0
	flush := func() {
		if len(word) > 0 && len(word) <= MaxTermBytes {
			fn(word)
		}
		word = word[:0]
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
				word = append(word, c)
			case c >= 'A' && c <= 'Z':
				word = append(word, c+('a'-'A'))
			default:
				flush()
			}
			if prevCJK != 0 {
				prevCJK = 0
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case isCJK(r):
			flush()
			if prevCJK != 0 {
				word = utf8.AppendRune(utf8.AppendRune(word, prevCJK), r)
				flush()
			} else if i >= len(text) || !startsCJK(text[i:]) {
				// A lone character: index it alone.
				word = utf8.AppendRune(word, r)
				flush()
			}
			prevCJK = r
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			word = utf8.AppendRune(word, unicode.ToLower(r))
		default:
			flush()
		}
		prevCJK = 0
	}
	flush()
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Hangul, r)
}

func startsCJK(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isCJK(r)
}

// Terms returns the index terms of a passage, in order: every word,
// stemmed, stopwords included.
func Terms(text string) []string {
	var out []string
	words(text, func(w []byte) { out = append(out, stemOf(w)) })
	return out
}

// QueryTerm is a term of a query with its weight (how many times the
// query says it, or RM3's weight).
type QueryTerm struct {
	Term   string
	Weight float64
}

// maxQueryTerms bounds the distinct terms a query scores: a query is a
// question, not a document, and each term costs a posting-list scan.
const maxQueryTerms = 64

// ParseQuery returns the weighted terms of a query: its words stemmed,
// stopwords dropped unless the query has nothing else (then they are
// kept, so "to be or not to be" is still answered), a repeated word
// counting once more each time, in order of first appearance. At most 64
// distinct terms are kept.
func ParseQuery(q string) []QueryTerm {
	var all, content []QueryTerm
	add := func(list []QueryTerm, t string) []QueryTerm {
		for i := range list {
			if list[i].Term == t {
				list[i].Weight++
				return list
			}
		}
		if len(list) >= maxQueryTerms {
			return list
		}
		return append(list, QueryTerm{Term: t, Weight: 1})
	}
	words(q, func(w []byte) {
		t := stemOf(w)
		all = add(all, t)
		if !stopwords[string(w)] {
			content = add(content, t)
		}
	})
	if len(content) > 0 {
		return content
	}
	return all
}
