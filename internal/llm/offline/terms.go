package offline

import (
	"unicode"
	"unicode/utf8"
)

// Terms splits text into the index terms the embedder's word features use:
// lower-cased runs of letters and digits, stopwords dropped, plural endings
// stemmed. Lexical rankers (BM25 in the retrieval evaluation, the offline
// reranker) share it so that both sides of hybrid search agree on what a
// word is.
func Terms(text string) []string {
	var out []string
	var word []byte
	flush := func() {
		if len(word) == 0 {
			return
		}
		if !isStopword(word) {
			out = append(out, string(stem(word)))
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
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			word = utf8.AppendRune(word, unicode.ToLower(r))
		} else {
			flush()
		}
		i += size
	}
	flush()
	return out
}
