// Package vector owns the in-process approximate-nearest-neighbour index used
// for vector retrieval when the database has no vector search of its own
// (SQLite, or PostgreSQL without pgvector). It is a hierarchical navigable
// small-world graph (HNSW, Malkov & Yashunin 2016) over cosine similarity.
//
// Why not github.com/coder/hnsw, which the design names: checked at v0.6.1,
//   - replacing an existing key panics ("node not added") after the old node
//     has already been unlinked, leaving the graph damaged;
//   - deleting the last node leaves an empty layer and the next Search
//     dereferences a nil entry point;
//   - its layer search keeps only k results and stops at the first round
//     without improvement, so recall at k=10 falls well short of 0.95 on
//     384-dimensional data unless efSearch is raised far past what its
//     early exit lets it use;
//   - every node keeps a map of neighbours per layer and every expansion
//     sorts the map's keys, so building 100,000 nodes takes minutes and the
//     maps alone cost more memory than the vectors' budget leaves.
//
// This implementation keeps vectors and layer-0 links in fixed-size blocks
// of flat slices (no per-node allocations, no copying when the index grows),
// deletes by tombstone (deleted nodes still route searches, are never
// returned, and are compacted away once they outnumber the live ones), and
// chooses neighbours with the paper's diversity heuristic.
package vector

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Tuning, chosen with BenchmarkSearch100k and a sweep on offline-embedder
// vectors of synthetic chunks, the hardest of the benchmark's data sets
// (hashed lexical vectors are nearly orthogonal, so neighbours are hard to
// tell apart): at 5,000 vectors, M=16/efConstruction=128 reached recall@10
// 0.87 at ef=128 and 0.97 at ef=256; M=24/efConstruction=200 reached 0.95
// and 0.996. Layer 0 keeps 2M links, as the paper recommends.
const (
	defaultM              = 24
	defaultEfConstruction = 200
	defaultEfSearch       = 256
	maxLevel              = 16

	// linkSlack lets a node's link list overflow by this many before it is
	// pruned back with the neighbour heuristic, so the costly pruning runs
	// once per linkSlack new back-links instead of on every one (pruning
	// was half of the build time when done eagerly).
	linkSlack = 8

	blockShift = 10 // 1024 nodes per storage block
	blockSize  = 1 << blockShift
	blockMask  = blockSize - 1
)

// MaxDims bounds the vector size an index accepts.
const MaxDims = 16384

// Hit is one search result.
type Hit struct {
	ID    string
	Score float32 // cosine similarity in [-1, 1]
}

// ErrDims is returned by Add for a vector of the wrong size.
var ErrDims = errors.New("vector: wrong number of dimensions")

// Index is an HNSW graph keyed by string id. It is safe for concurrent use:
// searches share a read lock, writes take the write lock.
type Index struct {
	mu   sync.RWMutex
	dims int

	m, m0          int // max links per node on upper layers / layer 0
	efConstruction int
	efSearch       int
	efFixed        bool // set by SetEfSearch: no scaling with size and k
	levelMult      float64
	rng            *rand.Rand

	// Per node, by internal number.
	ids     []string
	levels  []uint8
	deleted []bool
	vecs    [][]float32 // blocks of blockSize*dims, unit length
	links0  [][]int32   // blocks of blockSize*(m0+linkSlack+1): count, then links
	upper   [][]int32   // per node: for layers 1..level, (m+linkSlack+1) slots each; nil at level 0

	byID  map[string]int32
	nDead int

	// During a parallel batch build only (nil otherwise): a lock per node
	// guarding its link lists, and one for the entry point.
	nodeLocks []sync.Mutex
	entryMu   sync.Mutex
	entry     int32 // -1 when empty
	top       int   // level of entry
	visits    sync.Pool
}

// New returns an empty index for vectors of dims elements.
func New(dims int) *Index {
	if dims < 1 {
		dims = 1
	}
	if dims > MaxDims {
		dims = MaxDims
	}
	ix := &Index{
		dims:           dims,
		m:              defaultM,
		m0:             2 * defaultM,
		efConstruction: defaultEfConstruction,
		efSearch:       defaultEfSearch,
		levelMult:      1 / math.Log(defaultM),
		// A fixed seed keeps builds reproducible; levels depend only on
		// the order of insertion, which callers control.
		rng:   rand.New(rand.NewPCG(0x5eed, 0x1d)),
		byID:  make(map[string]int32),
		entry: -1,
	}
	return ix
}

// Dims returns the vector size the index accepts.
func (ix *Index) Dims() int { return ix.dims }

// SetEfSearch sets the breadth of the layer-0 search (higher: better
// recall, slower). Values below 10 are raised to 10.
func (ix *Index) SetEfSearch(ef int) {
	ix.mu.Lock()
	ix.efSearch, ix.efFixed = max(ef, 10), true
	ix.mu.Unlock()
}

// Len returns the number of live vectors.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.byID)
}

// nodeBytes is what a node costs besides its vector and its layer-0
// links: its id (the string header and about 12 bytes of decimal id), its
// level and deletion mark, its upper-layer slice header and its entry in
// byID. Upper-layer links are counted by their expected number: a node
// reaches layer l with probability 1/m^l.
const nodeBytes = 16 + 12 + 2 + 24 + 48

// SizeBytes estimates the memory the index holds (vectors, links, ids and
// the id map), in constant time, for callers that bound the memory of many
// indexes together. Tombstoned nodes count until a compaction frees them.
func (ix *Index) SizeBytes() int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	nodes := int64(len(ix.ids))
	blocks := int64(len(ix.vecs))
	upperPerNode := float64(ix.m+linkSlack+1) * 4 / float64(ix.m-1) // Σ 1/m^l, l ≥ 1
	return blocks*blockSize*int64(ix.dims)*4 +
		int64(len(ix.links0))*blockSize*int64(ix.m0+linkSlack+1)*4 +
		nodes*nodeBytes + int64(float64(nodes)*upperPerNode)
}

// Add inserts v under id, replacing any vector id had. The vector is
// copied and normalised; the zero vector is accepted and scores 0 against
// everything. Vectors holding NaN or infinities are refused.
func (ix *Index) Add(id string, v []float32) error {
	if len(v) != ix.dims {
		return fmt.Errorf("%w: got %d, want %d", ErrDims, len(v), ix.dims)
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return errors.New("vector: value is NaN or infinite")
		}
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if old, ok := ix.byID[id]; ok {
		ix.tombstone(old)
	}
	ix.insert(id, v)
	ix.maybeCompact()
	return nil
}

// AddBatch adds vecs[i] under ids[i] as Add does, under one hold of the
// write lock (a first load of a source). All vectors are checked before
// any is added.
func (ix *Index) AddBatch(ids []string, vecs [][]float32) error {
	return ix.AddBatchOn(runtime.GOMAXPROCS(0), ids, vecs)
}

// AddBatchOn is AddBatch on at most workers goroutines: a build in the
// background (an embedding migration's new graph) leaves the other cores
// to requests.
func (ix *Index) AddBatchOn(workers int, ids []string, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return errors.New("vector: ids and vectors differ in number")
	}
	for _, v := range vecs {
		if len(v) != ix.dims {
			return fmt.Errorf("%w: got %d, want %d", ErrDims, len(v), ix.dims)
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return errors.New("vector: value is NaN or infinite")
			}
		}
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	workers = min(workers, len(ids)/parallelMin)
	if workers < 2 {
		for i, id := range ids {
			if old, ok := ix.byID[id]; ok {
				ix.tombstone(old)
			}
			ix.insert(id, vecs[i])
		}
		ix.maybeCompact()
		return nil
	}
	// Parallel build, as hnswlib does it: every node is allocated (vector
	// and level) first, then workers link them concurrently, each node's
	// links under its own lock, the entry point under entryMu.
	first := int32(len(ix.ids))
	last := make(map[string]int, len(ids)) // a later duplicate wins, as with Add in order
	for i, id := range ids {
		last[id] = i
	}
	for i, id := range ids {
		if last[id] != i {
			continue
		}
		if old, ok := ix.byID[id]; ok {
			ix.tombstone(old)
		}
		ix.alloc(id, vecs[i], ix.randomLevel())
	}
	start := first
	if ix.entry < 0 {
		ix.entry, ix.top = first, int(ix.levels[first])
		start++
	}
	ix.nodeLocks = make([]sync.Mutex, len(ix.ids))
	var next atomic.Int32
	next.Store(start)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := next.Add(1) - 1
				if int(n) >= len(ix.ids) {
					return
				}
				ix.link1(n)
			}
		}()
	}
	wg.Wait()
	ix.nodeLocks = nil
	ix.maybeCompact()
	return nil
}

// parallelMin is the batch size per worker below which a batch is built
// serially (starting goroutines costs more than it saves).
const parallelMin = 512

// Each calls fn with the id of every live vector (under the read lock:
// fn must not call the index).
func (ix *Index) Each(fn func(id string)) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for id := range ix.byID {
		fn(id)
	}
}

// Delete removes id and reports whether it was present.
func (ix *Index) Delete(id string) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	n, ok := ix.byID[id]
	if !ok {
		return false
	}
	ix.tombstone(n)
	ix.maybeCompact()
	return true
}

func (ix *Index) tombstone(n int32) {
	delete(ix.byID, ix.ids[n])
	ix.deleted[n] = true
	ix.nDead++
}

// maybeCompact rebuilds the graph from the live vectors once tombstones
// outnumber them, so memory and search effort stay proportional to what
// is live. The cost is amortised over at least as many deletes.
func (ix *Index) maybeCompact() {
	live := len(ix.byID)
	if live == 0 {
		ix.reset()
		return
	}
	if ix.nDead < 1024 || ix.nDead <= live {
		return
	}
	ids, deleted, vecs := ix.ids, ix.deleted, ix.vecs
	ix.reset()
	for n, id := range ids {
		if !deleted[n] {
			o := (n & blockMask) * ix.dims
			ix.insert(id, vecs[n>>blockShift][o:o+ix.dims])
		}
	}
}

func (ix *Index) reset() {
	ix.ids, ix.levels, ix.deleted = nil, nil, nil
	ix.vecs, ix.links0, ix.upper = nil, nil, nil
	ix.byID = make(map[string]int32)
	ix.nDead = 0
	ix.entry, ix.top = -1, 0
}

// Search returns up to k live vectors most similar to q, best first. A
// query of the wrong size or k < 1 returns nil.
func (ix *Index) Search(q []float32, k int) []Hit {
	if len(q) != ix.dims || k < 1 {
		return nil
	}
	qn := make([]float32, len(q))
	copy(qn, q)
	normalize(qn)

	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.entry < 0 {
		return nil
	}
	k = min(k, len(ix.byID))
	ep := ix.entry
	epDist := ix.dist(qn, ep)
	for l := ix.top; l > 0; l-- {
		ep, epDist = ix.greedy(qn, ep, epDist, l)
	}
	ef := ix.breadth(k)
	// Tombstones route but are never results; widen the search in
	// proportion so k live results are still found.
	if ix.nDead > 0 {
		ef += ef * ix.nDead / max(len(ix.byID), 1)
	}
	res := ix.searchLayer(qn, ep, epDist, ef, 0, true)
	if len(res) > k {
		res = res[:k]
	}
	out := make([]Hit, len(res))
	for i, c := range res {
		out[i] = Hit{ID: ix.ids[c.n], Score: 1 - c.d}
	}
	return out
}

// breadth is the layer-0 search breadth for a top-k query. Recall at a
// fixed breadth falls as the graph grows (on the benchmark's text vectors,
// 0.97 at 10,000 and 0.78 at 100,000 with 256), so unless SetEfSearch
// fixed it, the breadth grows with the number of vectors and with k.
func (ix *Index) breadth(k int) int {
	if ix.efFixed {
		return max(ix.efSearch, k)
	}
	return max(autoEf(len(ix.byID), ix.efSearch), k) + 8*max(k-10, 0)
}

// autoEf scales the base breadth with the index's size: base up to
// 10,000 vectors, then as (n/10,000)^0.6, capped at maxAutoEf. Measured on
// the benchmark's text vectors (BenchmarkEfSweep, M = 24,
// efConstruction = 200): recall@10 0.972 at 10,000 with 256; at 100,000
// 0.784 with 256, 0.885 with 512, 0.935 with 768 and 0.957 with 1,024,
// which this formula gives there.
func autoEf(n, base int) int {
	if n <= 10_000 {
		return base
	}
	return min(int(float64(base)*math.Pow(float64(n)/10_000, 0.6)), maxAutoEf)
}

// maxAutoEf bounds the automatic breadth (and so a search's cost) however
// large an index grows.
const maxAutoEf = 2048

// Exact returns the k most similar live vectors by scanning all of them.
// It is the reference the approximate search is measured against, and a
// fallback for callers that need exact answers on small sets.
func (ix *Index) Exact(q []float32, k int) []Hit {
	if len(q) != ix.dims || k < 1 {
		return nil
	}
	qn := make([]float32, len(q))
	copy(qn, q)
	normalize(qn)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var h maxHeap
	for n := range ix.ids {
		if ix.deleted[n] {
			continue
		}
		d := ix.dist(qn, int32(n))
		if h.Len() < k {
			h.push(cand{int32(n), d})
		} else if d < h.top().d {
			h.pop()
			h.push(cand{int32(n), d})
		}
	}
	res := h.drainAscending()
	out := make([]Hit, len(res))
	for i, c := range res {
		out[i] = Hit{ID: ix.ids[c.n], Score: 1 - c.d}
	}
	return out
}

// --- storage ---

func (ix *Index) vec(n int32) []float32 {
	b := ix.vecs[n>>blockShift]
	o := int(n&blockMask) * ix.dims
	return b[o : o+ix.dims : o+ix.dims]
}

// links returns the link slots of n on layer l: slot 0 is the count.
func (ix *Index) links(n int32, l int) []int32 {
	if l == 0 {
		w := ix.m0 + linkSlack + 1
		b := ix.links0[n>>blockShift]
		o := int(n&blockMask) * w
		return b[o : o+w : o+w]
	}
	w := ix.m + linkSlack + 1
	o := (l - 1) * w
	return ix.upper[n][o : o+w : o+w]
}

func (ix *Index) maxLinks(l int) int {
	if l == 0 {
		return ix.m0
	}
	return ix.m
}

func (ix *Index) alloc(id string, v []float32, level int) int32 {
	n := int32(len(ix.ids))
	if int(n)>>blockShift == len(ix.vecs) {
		ix.vecs = append(ix.vecs, make([]float32, blockSize*ix.dims))
		ix.links0 = append(ix.links0, make([]int32, blockSize*(ix.m0+linkSlack+1)))
	}
	ix.ids = append(ix.ids, id)
	ix.levels = append(ix.levels, uint8(level))
	ix.deleted = append(ix.deleted, false)
	var up []int32
	if level > 0 {
		up = make([]int32, level*(ix.m+linkSlack+1))
	}
	ix.upper = append(ix.upper, up)
	dst := ix.vec(n)
	copy(dst, v)
	normalize(dst)
	ix.byID[id] = n
	return n
}

func (ix *Index) randomLevel() int {
	l := int(-math.Log(1-ix.rng.Float64()) * ix.levelMult)
	return min(l, maxLevel)
}

// --- graph ---

func (ix *Index) insert(id string, v []float32) {
	level := ix.randomLevel()
	n := ix.alloc(id, v, level)
	if ix.entry < 0 {
		ix.entry, ix.top = n, level
		return
	}
	ix.link1(n)
}

// link1 links the allocated node n into the graph. In a parallel build it
// runs concurrently with others: the entry point is read under entryMu
// (held throughout when n becomes the new top, so that only one node at a
// time raises the graph), link lists are read and written under their
// node's lock.
func (ix *Index) link1(n int32) {
	level := int(ix.levels[n])
	parallel := ix.nodeLocks != nil
	if parallel {
		ix.entryMu.Lock()
	}
	ep, top := ix.entry, ix.top
	raise := level > top
	if parallel && !raise {
		ix.entryMu.Unlock()
	}
	q := ix.vec(n)
	epDist := ix.dist(q, ep)
	for l := top; l > level; l-- {
		ep, epDist = ix.greedy(q, ep, epDist, l)
	}
	for l := min(level, top); l >= 0; l-- {
		cands := ix.searchLayer(q, ep, epDist, ix.efConstruction, l, false)
		if k := slices.IndexFunc(cands, func(c cand) bool { return c.n == n }); k >= 0 {
			cands = slices.Delete(cands, k, k+1)
		}
		if len(cands) == 0 {
			continue
		}
		neigh := ix.selectNeighbours(cands, ix.m)
		if parallel {
			ix.nodeLocks[n].Lock()
		}
		own := ix.links(n, l)
		own[0] = int32(len(neigh))
		for i, c := range neigh {
			own[1+i] = c.n
		}
		if parallel {
			ix.nodeLocks[n].Unlock()
		}
		for _, c := range neigh {
			ix.link(c.n, n, c.d, l)
		}
		ep, epDist = cands[0].n, cands[0].d
	}
	if raise {
		ix.entry, ix.top = n, level
		if parallel {
			ix.entryMu.Unlock()
		}
	}
}

// neighbours returns n's links on layer l: the list itself, or in a
// parallel build a copy taken under n's lock into buf.
func (ix *Index) neighbours(n int32, l int, buf []int32) []int32 {
	ls := ix.links(n, l)
	if ix.nodeLocks == nil {
		return ls[1 : 1+ls[0]]
	}
	ix.nodeLocks[n].Lock()
	k := copy(buf[:cap(buf)], ls[1:1+ls[0]])
	ix.nodeLocks[n].Unlock()
	return buf[:k]
}

// link adds a link from a to b on layer l (d is their distance), pruning
// a's links with the diversity heuristic when they are full.
func (ix *Index) link(a, b int32, d float32, l int) {
	if ix.nodeLocks != nil {
		ix.nodeLocks[a].Lock()
		defer ix.nodeLocks[a].Unlock()
	}
	ls := ix.links(a, l)
	cnt := int(ls[0])
	limit := ix.maxLinks(l)
	if cnt < limit+linkSlack {
		ls[1+cnt] = b
		ls[0]++
		return
	}
	va := ix.vec(a)
	cands := make([]cand, 0, cnt+1)
	cands = append(cands, cand{b, d})
	for _, x := range ls[1 : 1+cnt] {
		cands = append(cands, cand{x, ix.dist(va, x)})
	}
	sortCands(cands)
	keep := ix.selectNeighbours(cands, limit)
	ls[0] = int32(len(keep))
	for i, c := range keep {
		ls[1+i] = c.n
	}
}

// selectNeighbours picks up to m of cands (sorted nearest first) by the
// HNSW heuristic: a candidate is kept only if it is nearer to the base
// than to every neighbour already kept, which spreads links across
// directions instead of clustering them; the remaining slots are then
// filled with the nearest of the rejected, so nodes keep their degree.
func (ix *Index) selectNeighbours(cands []cand, m int) []cand {
	if len(cands) <= m {
		return cands
	}
	keep := make([]cand, 0, m)
	var rejected []cand
	for _, c := range cands {
		if len(keep) >= m {
			break
		}
		vc := ix.vec(c.n)
		good := true
		for _, k := range keep {
			if dot1(vc, ix.vec(k.n)) < c.d {
				good = false
				break
			}
		}
		if good {
			keep = append(keep, c)
		} else {
			rejected = append(rejected, c)
		}
	}
	for _, c := range rejected {
		if len(keep) >= m {
			break
		}
		keep = append(keep, c)
	}
	return keep
}

// greedy walks layer l from ep towards q while a neighbour is nearer.
func (ix *Index) greedy(q []float32, ep int32, epDist float32, l int) (int32, float32) {
	var buf []int32
	if ix.nodeLocks != nil {
		buf = make([]int32, 0, ix.m0+linkSlack)
	}
	for changed := true; changed; {
		changed = false
		for _, x := range ix.neighbours(ep, l, buf) {
			if d := ix.dist(q, x); d < epDist {
				ep, epDist, changed = x, d, true
			}
		}
	}
	return ep, epDist
}

// searchLayer is the paper's SEARCH-LAYER: a best-first walk that keeps
// the ef nearest nodes seen. With liveOnly, tombstoned nodes are walked
// through but not kept. The result is sorted nearest first.
func (ix *Index) searchLayer(q []float32, ep int32, epDist float32, ef, l int, liveOnly bool) []cand {
	vis := ix.visited()
	defer ix.visits.Put(vis)
	vis.mark(ep)

	var open minHeap
	var best maxHeap
	var buf []int32
	if ix.nodeLocks != nil {
		buf = make([]int32, 0, ix.m0+linkSlack)
	}
	open.push(cand{ep, epDist})
	if !liveOnly || !ix.deleted[ep] {
		best.push(cand{ep, epDist})
	}
	for open.Len() > 0 {
		c := open.pop()
		if best.Len() >= ef && c.d > best.top().d {
			break
		}
		for _, x := range ix.neighbours(c.n, l, buf) {
			if !vis.mark(x) {
				continue
			}
			d := ix.dist(q, x)
			if best.Len() < ef || d < best.top().d {
				open.push(cand{x, d})
				if liveOnly && ix.deleted[x] {
					continue
				}
				best.push(cand{x, d})
				if best.Len() > ef {
					best.pop()
				}
			}
		}
	}
	return best.drainAscending()
}

// dist is the cosine distance 1 - q·v for unit vectors.
func (ix *Index) dist(q []float32, n int32) float32 {
	return 1 - dot(q, ix.vec(n))
}

// dot1 is the cosine distance between two stored vectors.
func dot1(a, b []float32) float32 { return 1 - dot(a, b) }

func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		s0 += a[i]*b[i] + a[i+4]*b[i+4]
		s1 += a[i+1]*b[i+1] + a[i+5]*b[i+5]
		s2 += a[i+2]*b[i+2] + a[i+6]*b[i+6]
		s3 += a[i+3]*b[i+3] + a[i+7]*b[i+7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// --- visited sets ---

// visitSet marks nodes with a generation number so it is cleared in O(1)
// between searches; sets are pooled so concurrent readers each have one.
type visitSet struct {
	gen   uint16
	marks []uint16
}

func (ix *Index) visited() *visitSet {
	v, _ := ix.visits.Get().(*visitSet)
	if v == nil {
		v = &visitSet{}
	}
	if len(v.marks) < len(ix.ids) {
		v.marks = make([]uint16, len(ix.ids)+len(ix.ids)/4+64)
		v.gen = 0
	}
	v.gen++
	if v.gen == 0 { // wrapped: old marks could collide
		clear(v.marks)
		v.gen = 1
	}
	return v
}

// mark records n and reports whether it was not yet visited.
func (v *visitSet) mark(n int32) bool {
	if v.marks[n] == v.gen {
		return false
	}
	v.marks[n] = v.gen
	return true
}
