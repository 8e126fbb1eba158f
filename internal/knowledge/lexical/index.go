package lexical

import (
	"encoding/binary"
	"sync"
)

// Index is an inverted index of passages, each with two fields: its text
// (the body) and its heading (title and descriptive metadata of the
// content it belongs to). Passages are known by a key (the stored
// passage's seq) and belong to a group (its content), which a search may
// be restricted to. It is safe for concurrent use: searches share a read
// lock, changes take the write lock.
//
// Postings are kept per term in passage order, delta- and varint-encoded
// (about 2.5 bytes a posting), so 100,000 passages of 250 words take some
// 40 MB. A deleted passage is marked and skipped; its postings are dropped
// when deleted passages grow to half the index (compact), and until then
// still count in the document frequencies, as in Lucene's segments.
type Index struct {
	mu sync.RWMutex

	keys    []int64  // doc → key
	group   []int32  // doc → group number
	bodyLen []uint32 // doc → terms in the body
	headLen []uint32 // doc → terms in the heading
	dead    []bool
	byKey   map[int64]int32

	groups  []string
	groupOf map[string]int32

	termOf   map[string]int32
	postings [][]byte // term → encoded postings
	lastDoc  []int32  // term → last doc appended
	df       []int32  // term → docs holding it (dead ones until compaction)

	live             int
	deleted          int
	sumBody, sumHead int64

	// heapBytes is the capacity of the posting lists plus the bytes of
	// the term and group strings, kept as they grow (SizeBytes).
	heapBytes int64
}

// Estimated fixed costs behind SizeBytes: per document the key, group,
// lengths and dead flag plus its byKey map entry; per term its dictionary
// entry, slice header, lastDoc and df; per group its string header and
// map entry. A map entry is counted at about twice its slot, for the
// control bytes and the room a growing map keeps free.
const (
	docBytes   = 8 + 4 + 4 + 4 + 1 + 32
	termBytes  = 64 + 24 + 4 + 4
	groupBytes = 16 + 64
)

// SizeBytes estimates the memory the index holds, from its counts and
// the capacity of its posting lists; it is what a memory budget over many
// indexes counts (not exact: allocator and map overheads vary).
func (x *Index) SizeBytes() int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return int64(cap(x.keys))*docBytes + int64(len(x.postings))*termBytes + int64(len(x.groups))*groupBytes + x.heapBytes
}

// Reset empties the index, releasing what it held.
func (x *Index) Reset() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.keys, x.group, x.bodyLen, x.headLen, x.dead = nil, nil, nil, nil, nil
	x.byKey = map[int64]int32{}
	x.groups, x.groupOf = nil, map[string]int32{}
	x.termOf, x.postings, x.lastDoc, x.df = map[string]int32{}, nil, nil, nil
	x.live, x.deleted, x.sumBody, x.sumHead, x.heapBytes = 0, 0, 0, 0, 0
}

// New returns an empty index.
func New() *Index {
	return &Index{byKey: map[int64]int32{}, groupOf: map[string]int32{}, termOf: map[string]int32{}}
}

// Len is the number of live passages.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// Has reports whether key is a live passage.
func (x *Index) Has(key int64) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	_, ok := x.byKey[key]
	return ok
}

// Keys calls fn with every live key.
func (x *Index) Keys(fn func(int64)) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	for k := range x.byKey {
		fn(k)
	}
}

// Doc is a passage to index.
type Doc struct {
	Key     int64
	Group   string
	Body    string
	Heading string
}

// Add indexes passages; a key already present is left as it is (keys are
// never reused for other text).
func (x *Index) Add(docs ...Doc) {
	type counted struct {
		body, head map[string]uint32
		nb, nh     int
	}
	// Analyse outside the lock: it is most of the work.
	prepared := make([]counted, len(docs))
	for i, d := range docs {
		c := counted{body: map[string]uint32{}, head: map[string]uint32{}}
		words(d.Body, func(w []byte) { c.body[stemOf(w)]++; c.nb++ })
		words(d.Heading, func(w []byte) { c.head[stemOf(w)]++; c.nh++ })
		prepared[i] = c
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	var buf [3 * binary.MaxVarintLen64]byte
	for i, d := range docs {
		if _, ok := x.byKey[d.Key]; ok {
			continue
		}
		c := prepared[i]
		doc := int32(len(x.keys))
		g, ok := x.groupOf[d.Group]
		if !ok {
			g = int32(len(x.groups))
			x.groups = append(x.groups, d.Group)
			x.groupOf[d.Group] = g
			x.heapBytes += int64(len(d.Group))
		}
		x.keys = append(x.keys, d.Key)
		x.group = append(x.group, g)
		x.bodyLen = append(x.bodyLen, uint32(c.nb))
		x.headLen = append(x.headLen, uint32(c.nh))
		x.dead = append(x.dead, false)
		x.byKey[d.Key] = doc
		x.live++
		x.sumBody += int64(c.nb)
		x.sumHead += int64(c.nh)
		post := func(term string, tb, th uint32) {
			t, ok := x.termOf[term]
			if !ok {
				t = int32(len(x.postings))
				x.termOf[term] = t
				x.heapBytes += int64(len(term))
				x.postings = append(x.postings, nil)
				x.lastDoc = append(x.lastDoc, -1)
				x.df = append(x.df, 0)
			}
			gap := uint64(doc - x.lastDoc[t])
			flag := uint64(0)
			if th > 0 {
				flag = 1
			}
			n := binary.PutUvarint(buf[:], gap<<1|flag)
			n += binary.PutUvarint(buf[n:], uint64(tb))
			if th > 0 {
				n += binary.PutUvarint(buf[n:], uint64(th))
			}
			before := cap(x.postings[t])
			x.postings[t] = append(x.postings[t], buf[:n]...)
			x.heapBytes += int64(cap(x.postings[t]) - before)
			x.lastDoc[t] = doc
			x.df[t]++
		}
		for term, tb := range c.body {
			post(term, tb, c.head[term])
		}
		for term, th := range c.head {
			if _, done := c.body[term]; !done {
				post(term, 0, th)
			}
		}
	}
}

// Delete removes passages by key; unknown keys are ignored. It reports
// how many were removed.
func (x *Index) Delete(keys ...int64) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := 0
	for _, k := range keys {
		doc, ok := x.byKey[k]
		if !ok {
			continue
		}
		delete(x.byKey, k)
		x.dead[doc] = true
		x.live--
		x.deleted++
		x.sumBody -= int64(x.bodyLen[doc])
		x.sumHead -= int64(x.headLen[doc])
		n++
	}
	if x.deleted > 64 && x.deleted*2 > len(x.keys) {
		x.compact()
	}
	return n
}

// posting is one decoded posting.
type posting struct {
	doc    int32
	tb, th uint32
}

// eachPosting decodes a posting list.
func eachPosting(p []byte, fn func(posting)) {
	doc := int32(-1)
	for len(p) > 0 {
		v, n := binary.Uvarint(p)
		p = p[n:]
		doc += int32(v >> 1)
		tb, n := binary.Uvarint(p)
		p = p[n:]
		var th uint64
		if v&1 == 1 {
			th, n = binary.Uvarint(p)
			p = p[n:]
		}
		fn(posting{doc, uint32(tb), uint32(th)})
	}
}

// compact drops deleted passages: documents are renumbered in order, every
// posting list is re-encoded without them, and terms no live passage holds
// leave the dictionary. Called with the write lock.
func (x *Index) compact() {
	renum := make([]int32, len(x.keys))
	n := int32(0)
	for doc := range x.keys {
		if x.dead[doc] {
			renum[doc] = -1
			continue
		}
		renum[doc] = n
		x.keys[n], x.group[n], x.bodyLen[n], x.headLen[n], x.dead[n] = x.keys[doc], x.group[doc], x.bodyLen[doc], x.headLen[doc], false
		x.byKey[x.keys[n]] = n
		n++
	}
	x.keys, x.group, x.bodyLen, x.headLen, x.dead = x.keys[:n], x.group[:n], x.bodyLen[:n], x.headLen[:n], x.dead[:n]
	var buf [3 * binary.MaxVarintLen64]byte
	termOf := make(map[string]int32, len(x.termOf))
	var postings [][]byte
	var lastDoc, dfs []int32
	for term, t := range x.termOf {
		p := x.postings[t]
		var out []byte
		last := int32(-1)
		df := int32(0)
		eachPosting(p, func(ps posting) {
			doc := renum[ps.doc]
			if doc < 0 {
				return
			}
			flag := uint64(0)
			if ps.th > 0 {
				flag = 1
			}
			k := binary.PutUvarint(buf[:], uint64(doc-last)<<1|flag)
			k += binary.PutUvarint(buf[k:], uint64(ps.tb))
			if ps.th > 0 {
				k += binary.PutUvarint(buf[k:], uint64(ps.th))
			}
			out = append(out, buf[:k]...)
			last = doc
			df++
		})
		if df == 0 {
			continue // no live passage holds the term any more
		}
		termOf[term] = int32(len(postings))
		postings, lastDoc, dfs = append(postings, out), append(lastDoc, last), append(dfs, df)
	}
	x.termOf, x.postings, x.lastDoc, x.df = termOf, postings, lastDoc, dfs
	x.deleted = 0
	x.heapBytes = 0
	for term, t := range x.termOf {
		x.heapBytes += int64(len(term) + cap(x.postings[t]))
	}
	for _, g := range x.groups {
		x.heapBytes += int64(len(g))
	}
}
