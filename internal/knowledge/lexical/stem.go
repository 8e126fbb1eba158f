package lexical

import (
	"sync"
	"sync/atomic"

	"github.com/kljensen/snowball/english"
)

// stemOf returns the stem of a lower-cased word: the Porter2 (Snowball
// English) stem of a word of letters a to z, the word itself otherwise
// (numbers, other scripts). Stems are cached: a corpus has few distinct
// words, and Porter2 allocates.
func stemOf(w []byte) string {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return string(w)
		}
	}
	if len(w) <= 2 {
		return string(w)
	}
	if s, ok := stemCache.Load(string(w)); ok {
		return s.(string)
	}
	word := string(w)
	s := stemFunc(word)
	if stemCacheSize.Add(1) < maxStemCache {
		stemCache.Store(word, s)
	}
	return s
}

var stemFunc = func(w string) string { return english.Stem(w, true) }

// The cache is bounded: a stream of invented words must not grow it
// without end. 200,000 words is far beyond an English vocabulary.
const maxStemCache = 200_000

var (
	stemCache     sync.Map
	stemCacheSize atomic.Int64
)
