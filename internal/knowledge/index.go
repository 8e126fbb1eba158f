package knowledge

import (
	"context"
	"database/sql"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/knowledge/vector"
	"github.com/agentry/agentry/internal/store"
)

// Index is the vector side of the search index; the full-text side is
// lexIndex, in process on both databases. Two implementations: memIndex, in process over
// knowledge/vector, loaded from the stored embeddings and kept in step
// with the database; pgIndex, pgvector's HNSW inside PostgreSQL.
type Index interface {
	Name() string
	// Prepare readies the index for vectors of dims (outside any transaction).
	Prepare(ctx context.Context, dims int) error
	// InTx writes added chunks within the transaction that stores them.
	InTx(ctx context.Context, tx *sql.Tx, added []Chunk) error
	// Forget drops removed chunks after their transaction committed.
	Forget(sourceID string, removed []int64)
	// Search returns the best k chunks of the account's sources for q,
	// cosine similarity, best first: only chunks embedded by model, so
	// during a switch to another model of the same size the query never
	// meets the other generation's vectors.
	Search(ctx context.Context, accountID string, sourceIDs []string, model string, dims int, q []float32, k int) ([]VectorHit, error)
}

// VectorHit is a chunk found by the vector side.
type VectorHit struct {
	Seq      int64
	Score    float32
	SourceID string
}

// OpenIndex picks the index for db: pgvector where PostgreSQL has it (or
// lets us install it), else the in-process index, logged once. snapshotDir,
// when not empty, is where the in-process index keeps its graphs between
// restarts.
func OpenIndex(ctx context.Context, db *store.DB, snapshotDir string, budget int64) (Index, error) {
	if db.Dialect == store.Postgres {
		ix, err := openPGVector(ctx, db)
		if err == nil {
			return ix, nil
		}
		logOnce(&pgFallbackOnce, "pgvector is not available; knowledge search uses the in-process vector index", "err", err)
	}
	return newMemIndex(db, snapshotDir, budget), nil
}

var pgFallbackOnce sync.Once

// memIndex holds one in-process ANN index per source.
//
// Loading: on a source's first search the index is read from its snapshot
// (snapshotDir/<source>.hnsw) when there is one, else built from the stored
// embeddings; either way it is then reconciled with the database: every
// seq the snapshot holds that the database no longer has is deleted, and
// every stored chunk it lacks is added. The database is the truth and the
// snapshot only a head start, so a stale, old or damaged snapshot costs
// time, never correctness.
//
// Keeping in step: before each search the chunks added since (by seq) are
// read, so writes of any process reach it; deletions arrive through Forget
// (this process's writes) and, for other processes' deletions, through the
// search dropping a hit whose chunk is gone (Forget again).
//
// Saving: a source's snapshot is rewritten in the background once it has
// changed and the last write is snapshotEvery old, and at shutdown (Flush).
//
// Bounding: a tenant decides how many sources and vectors it has, so the
// loaded graphs are bounded by a byte budget (--vector-index-bytes), as
// the full-text indexes are: after each search, while the estimated total
// exceeds the budget, the least recently searched sources are unloaded
// (a source being searched, loaded or switched is skipped), and their next
// search loads them again, from the snapshot and the database. An unloaded
// source's changes since its last snapshot are not written: the database
// is the truth, and the reload reconciles an old snapshot with it.
type memIndex struct {
	db     *store.DB
	dir    string
	budget int64 // bytes; 0: no bound
	mu     sync.Mutex
	m      map[string]*memSource
	clock  int64          // ticks at every search, for least recently searched
	bg     sync.WaitGroup // background snapshot writes
}

type memSource struct {
	mu      sync.Mutex
	loaded  bool
	ix      *vector.Index
	present map[int64]bool
	high    int64 // highest seq loaded

	changed bool // since the last snapshot
	saving  bool
	// switching: an embedding migration is moving the source to a graph
	// it built beforehand; searches meanwhile (milliseconds) skip the
	// vector side rather than build a graph inside the request.
	switching bool
	savedAt   time.Time
	dropped   bool // the source was deleted: no snapshot may stay

	lastUsed int64 // memIndex.clock at the last search; under memIndex.mu
}

// snapshotEvery spaces a source's background snapshot writes.
const snapshotEvery = time.Minute

// lookback re-reads the most recent seqs on PostgreSQL, where a
// transaction may commit a lower seq after a higher one was seen.
func (m *memIndex) lookback() int64 {
	if m.db.Dialect == store.Postgres {
		return 2048
	}
	return 0
}

func newMemIndex(db *store.DB, dir string, budget int64) *memIndex {
	return &memIndex{db: db, dir: dir, budget: budget, m: map[string]*memSource{}}
}

func (m *memIndex) Name() string { return "in-process HNSW" }

func (m *memIndex) Prepare(context.Context, int) error { return nil }

func (m *memIndex) InTx(context.Context, *sql.Tx, []Chunk) error { return nil }

func (m *memIndex) source(id string) *memSource {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, ok := m.m[id]
	if !ok {
		ms = &memSource{present: map[int64]bool{}}
		m.m[id] = ms
	}
	return ms
}

func (m *memIndex) Forget(sourceID string, removed []int64) {
	if len(removed) == 0 {
		return
	}
	ms := m.source(sourceID)
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for _, seq := range removed {
		if ms.present[seq] {
			ms.ix.Delete(strconv.FormatInt(seq, 10))
			delete(ms.present, seq)
			ms.changed = true
		}
	}
}

func (m *memIndex) snapshotPath(sourceID string) string {
	return filepath.Join(m.dir, sourceID+".hnsw")
}

// load brings a source's index up for the first time: from its snapshot
// when one is readable, then reconciled with the stored chunks.
func (m *memIndex) load(ctx context.Context, sourceID string, ms *memSource) error {
	if m.dir != "" && validID(sourceID) {
		if f, err := os.Open(m.snapshotPath(sourceID)); err == nil {
			ix, err := vector.Read(f)
			f.Close()
			if err != nil {
				slog.Warn("knowledge: vector index snapshot unreadable; rebuilding", "source", sourceID, "err", err)
			} else {
				ms.ix = ix
			}
		}
	}
	live, err := repoOn(m.db).SourceChunkSeqs(ctx, sourceID)
	if err != nil {
		return err
	}
	ms.present = map[int64]bool{}
	if ms.ix != nil {
		inDB := make(map[int64]bool, len(live))
		for _, s := range live {
			inDB[s] = true
		}
		var gone []string
		ms.ix.Each(func(id string) {
			seq, err := strconv.ParseInt(id, 10, 64)
			if err != nil || !inDB[seq] {
				gone = append(gone, id)
				return
			}
			ms.present[seq] = true
		})
		for _, id := range gone {
			ms.ix.Delete(id)
		}
		ms.changed = len(gone) > 0
	}
	// Whatever the snapshot lacks, read from the lowest missing seq on.
	from := int64(-1)
	for _, s := range live {
		if !ms.present[s] && (from < 0 || s < from) {
			from = s
		}
	}
	for s := range ms.present {
		ms.high = max(ms.high, s)
	}
	if from >= 0 {
		if err := m.add(ctx, sourceID, ms, from-1); err != nil {
			return err
		}
	}
	ms.loaded = true
	return nil
}

// add reads the source's vectors above seq after into the index. Rows
// already present are skipped; a first load goes through the bulk build.
func (m *memIndex) add(ctx context.Context, sourceID string, ms *memSource, after int64) error {
	var ids []string
	var vecs [][]float32
	err := repoOn(m.db).SourceVectors(ctx, sourceID, after, func(r VectorRow) error {
		if ms.present[r.Seq] {
			return nil
		}
		if ms.ix == nil || ms.ix.Dims() != r.Dims {
			ms.ix, ms.present, ids, vecs = vector.New(r.Dims), map[int64]bool{}, nil, nil
		}
		ids = append(ids, strconv.FormatInt(r.Seq, 10))
		vecs = append(vecs, r.Vector)
		ms.present[r.Seq] = true
		ms.high = max(ms.high, r.Seq)
		return nil
	})
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	ms.changed = true
	return ms.ix.AddBatch(ids, vecs)
}

// sync loads what the database has beyond what the index holds.
func (m *memIndex) sync(ctx context.Context, sourceID string, ms *memSource) error {
	if !ms.loaded {
		return m.load(ctx, sourceID, ms)
	}
	return m.add(ctx, sourceID, ms, max(0, ms.high-m.lookback()))
}

// maybeSave writes the source's snapshot in the background when it changed
// and the last write is old enough. Called with ms.mu held.
func (m *memIndex) maybeSave(sourceID string, ms *memSource) {
	if m.dir == "" || !ms.changed || ms.saving || ms.ix == nil || time.Since(ms.savedAt) < snapshotEvery || !validID(sourceID) {
		return
	}
	ms.saving, ms.changed = true, false
	ix := ms.ix
	m.bg.Add(1)
	go func() {
		defer m.bg.Done()
		err := m.write(sourceID, ix)
		ms.mu.Lock()
		if ms.dropped {
			os.Remove(m.snapshotPath(sourceID))
		}
		ms.saving, ms.savedAt = false, time.Now()
		if err != nil {
			ms.changed = true
		}
		ms.mu.Unlock()
	}()
}

// write saves a snapshot atomically: a reader sees the old file or the
// new one, never a partial one.
func (m *memIndex) write(sourceID string, ix *vector.Index) error {
	if err := os.MkdirAll(m.dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(m.dir, sourceID+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := ix.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	err = os.Rename(f.Name(), m.snapshotPath(sourceID))
	if err != nil {
		slog.Warn("knowledge: vector index snapshot not saved", "source", sourceID, "err", err)
	}
	return err
}

// Drop forgets a deleted source: its graph and its snapshot.
func (m *memIndex) Drop(sourceID string) {
	m.mu.Lock()
	ms := m.m[sourceID]
	delete(m.m, sourceID)
	m.mu.Unlock()
	if ms != nil {
		ms.mu.Lock()
		ms.dropped, ms.ix, ms.present = true, nil, map[int64]bool{}
		ms.mu.Unlock()
	}
	if m.dir != "" && validID(sourceID) {
		os.Remove(m.snapshotPath(sourceID))
	}
}

// Flush writes the snapshot of every source changed since its last one
// (at shutdown).
func (m *memIndex) Flush() {
	if m.dir == "" {
		return
	}
	m.bg.Wait()
	m.mu.Lock()
	all := make(map[string]*memSource, len(m.m))
	maps.Copy(all, m.m)
	m.mu.Unlock()
	for id, ms := range all {
		ms.mu.Lock()
		if ms.changed && ms.ix != nil && !ms.dropped && validID(id) {
			if err := m.write(id, ms.ix); err == nil {
				ms.changed, ms.savedAt = false, time.Now()
			}
		}
		ms.mu.Unlock()
	}
}

// validID keeps a source id usable as a file name.
func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// prebuilt is a source's graph of a new generation, built by an embedding
// migration before its switch.
type prebuilt struct {
	ix      *vector.Index
	present map[int64]bool
	high    int64
}

// prebuilder is an index an embedding migration builds the new
// generation's graph of before it switches, outside any request (the
// in-process index; pgvector's graphs live in the database).
type prebuilder interface {
	Prebuild(ctx context.Context, sourceID, model string, dims int) (*prebuilt, error)
	// Switch runs commit (the switch's transaction) and, once it
	// committed, installs p; searches in between skip the source's
	// vector side.
	Switch(sourceID string, p *prebuilt, commit func() error) error
}

func (m *memIndex) Prebuild(ctx context.Context, sourceID, model string, dims int) (*prebuilt, error) {
	p := &prebuilt{ix: vector.New(dims), present: map[int64]bool{}}
	var ids []string
	var vecs [][]float32
	err := repoOn(m.db).SourceVectorsOf(ctx, sourceID, model, dims, func(r VectorRow) error {
		ids = append(ids, strconv.FormatInt(r.Seq, 10))
		vecs = append(vecs, r.Vector)
		p.present[r.Seq] = true
		p.high = max(p.high, r.Seq)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		// A job's build, not a request's: on all cores it held another
		// tenant's run creation for over a second on two loaded cores.
		if err := p.ix.AddBatchOn(max(1, runtime.GOMAXPROCS(0)-1), ids, vecs); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (m *memIndex) Switch(sourceID string, p *prebuilt, commit func() error) error {
	ms := m.source(sourceID)
	ms.mu.Lock()
	ms.switching = true
	ms.mu.Unlock()
	err := commit()
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.switching = false
	if err == nil {
		ms.ix, ms.present, ms.high, ms.loaded, ms.changed = p.ix, p.present, p.high, true, true
	}
	return err
}

// Search ignores model: a source's graph holds only the generation the
// source names (sync loads that one, and a switch rebuilds it aside).
func (m *memIndex) Search(ctx context.Context, _ string, sourceIDs []string, _ string, dims int, q []float32, k int) ([]VectorHit, error) {
	defer m.evict()
	var out []VectorHit
	for _, id := range sourceIDs {
		ms := m.searched(id)
		ms.mu.Lock()
		if ms.switching {
			ms.mu.Unlock()
			continue
		}
		err := m.sync(ctx, id, ms)
		var hits []vector.Hit
		if err == nil && ms.ix != nil && ms.ix.Dims() == dims {
			hits = ms.ix.Search(q, k)
		}
		if err == nil {
			m.maybeSave(id, ms)
		}
		ms.mu.Unlock()
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			seq, _ := strconv.ParseInt(h.ID, 10, 64)
			out = append(out, VectorHit{Seq: seq, Score: h.Score, SourceID: id})
		}
	}
	return out, nil
}

// searched returns the source's entry, marked as the most recently searched.
func (m *memIndex) searched(id string) *memSource {
	ms := m.source(id)
	m.mu.Lock()
	m.clock++
	ms.lastUsed = m.clock
	m.mu.Unlock()
	return ms
}

// memEntryBytes is what an entry costs besides its graph (the entry, its
// seq set's base, the map slot), and presentBytes what each seq of the
// set costs, so that the budget counts everything a source holds.
const (
	memEntryBytes = 512
	presentBytes  = 40
)

// evict unloads the least recently searched sources while the loaded
// total exceeds the budget. A source whose lock is held (being searched,
// loaded or synced) or that is switching to a new graph is skipped: the
// budget is a target that the sources of the searches under way may
// exceed.
func (m *memIndex) evict() {
	if m.budget <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	type entry struct {
		id   string
		ms   *memSource
		size int64
	}
	var all []entry
	var total int64
	for id, ms := range m.m {
		if !ms.mu.TryLock() {
			total += memEntryBytes // held: counted at its base, never evicted now
			continue
		}
		size := int64(memEntryBytes + presentBytes*len(ms.present))
		if ms.ix != nil {
			size += ms.ix.SizeBytes()
		}
		switching := ms.switching
		ms.mu.Unlock()
		total += size
		if !switching {
			all = append(all, entry{id, ms, size})
		}
	}
	if total <= m.budget {
		return
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ms.lastUsed < all[j].ms.lastUsed })
	for _, e := range all {
		if total <= m.budget {
			break
		}
		if !e.ms.mu.TryLock() {
			continue
		}
		if e.ms.switching {
			e.ms.mu.Unlock()
			continue
		}
		// Searches reach an entry only through the map, under m.mu, which
		// is held: once it is gone from the map the next search makes a new
		// entry and loads it. Forget, Drop and a background snapshot write
		// may still hold this one; on the unloaded entry they do nothing
		// harmful (the write keeps its own reference to the old graph).
		e.ms.ix, e.ms.present, e.ms.loaded, e.ms.high = nil, map[int64]bool{}, false, 0
		e.ms.mu.Unlock()
		delete(m.m, e.id)
		total -= e.size
	}
}

// loadedSources lists the sources whose entry is held (for tests).
func (m *memIndex) loadedSources() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for id := range m.m {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Loaded says how many vectors the in-process index holds for a source
// (tests and the benchmark read it).
func (m *memIndex) Loaded(sourceID string) int {
	ms := m.source(sourceID)
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.ix == nil {
		return 0
	}
	return ms.ix.Len()
}

// VectorsLoaded says how many vectors the in-process graph of a source
// holds, without loading it; false when the vector side is not in process
// (pgvector).
func (s *Service) VectorsLoaded(sourceID string) (int, bool) {
	m, ok := s.index.(*memIndex)
	if !ok {
		return 0, false
	}
	return m.Loaded(sourceID), true
}
