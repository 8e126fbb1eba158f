package offline

import (
	"math"
	"sync"
	"unicode"
	"unicode/utf8"
)

// DefaultDimensions is the embedder's default vector size.
const DefaultDimensions = 384

// Dimension bounds accepted by NewEmbedder.
const (
	MinDimensions = 8
	MaxDimensions = 8192
)

// Feature-group weights, applied after each group is normalised so that a
// long word's many character n-grams cannot drown its one unigram. Words
// carry most meaning; bigrams add phrase order; character n-grams catch
// inflections and typos that the crude stemmer misses.
const (
	weightUnigram = 1.0
	weightBigram  = 0.5
	weightChar    = 0.55
	weightConcept = 0.6
)

// Seeds separate the hash spaces of the feature groups.
const (
	seedUnigram = 0x9e3779b97f4a7c15
	seedBigram  = 0xc2b2ae3d27d4eb4f
	seedChar    = 0x165667b19e3779f9
	seedConcept = 0x27d4eb2f165667c5
)

// Embedder turns text into L2-normalised lexical vectors of a fixed size.
// It is safe for concurrent use; scratch space is pooled per goroutine.
type Embedder struct {
	dim  int
	pool sync.Pool
}

type scratch struct {
	uni, bi, chr, con  []float32
	word, prevRaw, key []byte
}

// NewEmbedder returns an embedder producing dim-sized vectors, clamped to
// [MinDimensions, MaxDimensions]; 0 means DefaultDimensions.
func NewEmbedder(dim int) *Embedder {
	if dim == 0 {
		dim = DefaultDimensions
	}
	dim = min(max(dim, MinDimensions), MaxDimensions)
	e := &Embedder{dim: dim}
	e.pool.New = func() any {
		return &scratch{uni: make([]float32, dim), bi: make([]float32, dim), chr: make([]float32, dim),
			con: make([]float32, dim), word: make([]byte, 0, 64), prevRaw: make([]byte, 0, 64), key: make([]byte, 0, 130)}
	}
	return e
}

// Dim returns the vector size.
func (e *Embedder) Dim() int { return e.dim }

// Embed returns the vector of text.
func (e *Embedder) Embed(text string) []float32 {
	v := make([]float32, e.dim)
	e.EmbedInto(v, text)
	return v
}

// EmbedInto writes the vector of text into dst, which must have Dim()
// elements. It allocates nothing in the steady state. Text with no word
// characters yields the zero vector.
func (e *Embedder) EmbedInto(dst []float32, text string) {
	if len(dst) != e.dim {
		panic("offline: EmbedInto destination has the wrong length")
	}
	s := e.pool.Get().(*scratch)
	clear(s.uni)
	clear(s.bi)
	clear(s.chr)
	clear(s.con)
	e.accumulate(s, text)
	clear(dst)
	addGroup(dst, s.uni, weightUnigram)
	addGroup(dst, s.bi, weightBigram)
	addGroup(dst, s.chr, weightChar)
	addGroup(dst, s.con, weightConcept)
	normalize(dst)
	e.pool.Put(s)
}

// accumulate walks text once, word by word, counting features into the
// four group arrays with signed hashing (the sign bit of the hash decides
// +1 or -1, so collisions cancel out on average instead of piling up).
func (e *Embedder) accumulate(s *scratch, text string) {
	dim := uint64(e.dim)
	var prev uint64
	havePrev := false
	word := s.word[:0]
	i := 0
	for i <= len(text) {
		// Read the next word into word, lower-cased.
		word = word[:0]
		for i < len(text) {
			c := text[i]
			if c < utf8.RuneSelf {
				switch {
				case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
					word = append(word, c)
					i++
					continue
				case c >= 'A' && c <= 'Z':
					word = append(word, c+('a'-'A'))
					i++
					continue
				}
				i++
				if len(word) > 0 {
					break
				}
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				word = utf8.AppendRune(word, unicode.ToLower(r))
				i += size
				continue
			}
			i += size
			if len(word) > 0 {
				break
			}
		}
		if len(word) == 0 {
			break
		}
		if isStopword(word) {
			// Kept for two-word thesaurus phrases such as "log in".
			s.prevRaw = append(s.prevRaw[:0], word...)
			continue
		}
		charGrams(s.chr, word, dim)
		word = stem(word)
		e.concepts(s, word)
		s.prevRaw = append(s.prevRaw[:0], word...)
		h := fnv1a(seedUnigram, word)
		bump(s.uni, h, dim)
		if havePrev {
			bump(s.bi, mix(prev*0x100000001b3^h^seedBigram), dim)
		}
		prev, havePrev = h, true
	}
	s.word = word
	s.prevRaw = s.prevRaw[:0]
}

// concepts counts the thesaurus concepts of the stemmed word, and of the
// phrase it ends together with the previous word, into the concept group.
func (e *Embedder) concepts(s *scratch, word []byte) {
	dim := uint64(e.dim)
	for _, id := range synonymIndex[string(word)] {
		bump(s.con, mix(uint64(id)^seedConcept), dim)
	}
	if len(s.prevRaw) == 0 {
		return
	}
	s.key = append(append(append(s.key[:0], s.prevRaw...), ' '), word...)
	for _, id := range synonymIndex[string(s.key)] {
		bump(s.con, mix(uint64(id)^seedConcept), dim)
	}
}

// charGrams counts the 3- and 4-grams of the word framed by boundary
// markers, so "cat" yields "<ca", "cat", "at>", "<cat", "cat>".
func charGrams(acc []float32, w []byte, dim uint64) {
	n := len(w)
	if n > 48 {
		n = 48
	}
	at := func(i int) uint64 { // i in [-1, n]; boundaries are '<' and '>'
		switch {
		case i < 0:
			return '<'
		case i >= n:
			return '>'
		}
		return uint64(w[i])
	}
	for i := -1; i+2 <= n; i++ {
		g3 := at(i)<<16 | at(i+1)<<8 | at(i+2)
		bump(acc, mix(g3^seedChar), dim)
		if i+3 <= n {
			g4 := g3<<8 | at(i+3)
			bump(acc, mix(g4^(seedChar<<1)), dim)
		}
	}
}

// stem is a light English stemmer working in place: plural endings
// ("policies" → "policy", "refunds" → "refund"), then "-ing" and "-ed"
// ("logging" → "log", "damaged" → "damag"), then a final "e" ("damage" →
// "damag"), so the common inflections of a word share a unigram. It keeps
// a stem only if a vowel is left ("string" stays whole) and leaves
// derivations ("-ation", "-ment") to the character n-grams.
func stem(w []byte) []byte {
	n := len(w)
	switch {
	case n > 4 && w[n-3] == 'i' && w[n-2] == 'e' && w[n-1] == 's':
		w[n-3] = 'y'
		w = w[:n-2]
	case n > 4 && w[n-2] == 'e' && w[n-1] == 's' && (w[n-3] == 's' || w[n-3] == 'x' || w[n-3] == 'h'):
		w = w[:n-2]
	case n > 3 && w[n-1] == 's' && w[n-2] != 's' && w[n-2] != 'u' && w[n-2] != 'i':
		w = w[:n-1]
	}
	n = len(w)
	switch {
	case n > 5 && w[n-3] == 'i' && w[n-2] == 'n' && w[n-1] == 'g' && hasVowel(w[:n-3]):
		w = undouble(w[:n-3])
	case n > 4 && w[n-2] == 'e' && w[n-1] == 'd' && w[n-3] != 'e' && hasVowel(w[:n-2]):
		w = w[:n-2]
		if w[len(w)-1] == 'i' {
			w[len(w)-1] = 'y'
		} else {
			w = undouble(w)
		}
	}
	if n = len(w); n > 3 && w[n-1] == 'e' && w[n-2] != 'e' {
		w = w[:n-1]
	}
	return w
}

func hasVowel(w []byte) bool {
	for _, c := range w {
		switch c {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			return true
		}
	}
	return false
}

// undouble turns a doubled final consonant left by a stripped suffix into
// one ("runn" → "run"), except for l, s and z ("fall", "pass", "buzz").
func undouble(w []byte) []byte {
	n := len(w)
	if n > 2 && w[n-1] == w[n-2] {
		switch w[n-1] {
		case 'a', 'e', 'i', 'o', 'u', 'l', 's', 'z':
		default:
			return w[:n-1]
		}
	}
	return w
}

func fnv1a(seed uint64, b []byte) uint64 {
	h := uint64(0xcbf29ce484222325) ^ seed
	for _, c := range b {
		h ^= uint64(c)
		h *= 0x100000001b3
	}
	return mix(h)
}

// mix is the splitmix64 finaliser: FNV's low bits are weak, and the bucket
// and sign are taken from the high bits below.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// bump adds ±1 to the bucket of h. The bucket is chosen by multiplying the
// high 32 bits by dim (Lemire's range reduction, no division); the sign is
// the lowest bit, independent of the bucket bits.
func bump(acc []float32, h, dim uint64) {
	b := ((h >> 32) * dim) >> 32
	if h&1 == 0 {
		acc[b]++
	} else {
		acc[b]--
	}
}

// addGroup adds the sublinear-tf, unit-normalised group vector times w.
func addGroup(dst, g []float32, w float32) {
	var sum float64
	for i, c := range g {
		if c == 0 {
			continue
		}
		// 1+ln|c| keeps a word repeated ten times from counting ten
		// times as much as one said once. Counts are small integers, so
		// a table replaces most logarithms.
		a := c
		if a < 0 {
			a = -a
		}
		var v float32
		if a < float32(len(sublinear)) {
			v = sublinear[int(a)]
		} else {
			v = float32(1 + math.Log(float64(a)))
		}
		if c < 0 {
			v = -v
		}
		g[i] = v
		sum += float64(v) * float64(v)
	}
	if sum == 0 {
		return
	}
	scale := w / float32(math.Sqrt(sum))
	for i, v := range g {
		if v != 0 {
			dst[i] += v * scale
		}
	}
}

// sublinear[n] = 1 + ln n for the counts that occur in practice.
var sublinear = func() (t [256]float32) {
	for i := 1; i < len(t); i++ {
		t[i] = float32(1 + math.Log(float64(i)))
	}
	return t
}()

func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}

// Cosine returns the cosine similarity of two vectors of equal length
// (their dot product, for the normalised vectors Embed returns).
func Cosine(a, b []float32) float32 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float32
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / float32(math.Sqrt(float64(na)*float64(nb)))
}
