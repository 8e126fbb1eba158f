package knowledge

import (
	"context"
	"database/sql"
	"strconv"
	"sync"

	"github.com/agentry/agentry/internal/knowledge/vector"
	"github.com/agentry/agentry/internal/store"
)

// Index is the vector side of the search index; the lexical side is the
// database's own (FTS5 on SQLite, tsvector on PostgreSQL, kept in step by
// the store). Two implementations: memIndex, in process over
// knowledge/vector, loaded from the stored embeddings and kept in step
// with the database; pgIndex, pgvector's HNSW inside PostgreSQL.
type Index interface {
	Name() string
	// Prepare readies the index for vectors of dims (outside any transaction).
	Prepare(ctx context.Context, dims int) error
	// InTx writes added chunks within the transaction that stores them.
	InTx(ctx context.Context, tx *sql.Tx, added []store.Chunk) error
	// Forget drops removed chunks after their transaction committed.
	Forget(sourceID string, removed []int64)
	// Search returns the best k chunks of the account's sources for q,
	// cosine similarity, best first.
	Search(ctx context.Context, accountID string, sourceIDs []string, dims int, q []float32, k int) ([]VectorHit, error)
}

// VectorHit is a chunk found by the vector side.
type VectorHit struct {
	Seq   int64
	Score float32
}

// OpenIndex picks the index for db: pgvector where PostgreSQL has it (or
// lets us install it), else the in-process index, logged once.
func OpenIndex(ctx context.Context, db *store.DB) (Index, error) {
	if db.Dialect == store.Postgres {
		ix, err := openPGVector(ctx, db)
		if err == nil {
			return ix, nil
		}
		logOnce(&pgFallbackOnce, "pgvector is not available; knowledge search uses the in-process vector index", "err", err)
	}
	return newMemIndex(db), nil
}

var pgFallbackOnce sync.Once

// memIndex holds one in-process ANN index per source. A source is loaded
// from its stored embeddings on its first search, then brought up to date
// before each search by reading the chunks added since (by seq), so writes
// of any process reach it; chunks deleted elsewhere drop out when a search
// finds them gone.
type memIndex struct {
	db *store.DB
	mu sync.Mutex
	m  map[string]*memSource
}

type memSource struct {
	mu      sync.Mutex
	ix      *vector.Index
	present map[int64]bool
	high    int64 // highest seq loaded
}

// lookback re-reads the most recent seqs on PostgreSQL, where a
// transaction may commit a lower seq after a higher one was seen.
func (m *memIndex) lookback() int64 {
	if m.db.Dialect == store.Postgres {
		return 2048
	}
	return 0
}

func newMemIndex(db *store.DB) *memIndex { return &memIndex{db: db, m: map[string]*memSource{}} }

func (m *memIndex) Name() string { return "in-process HNSW" }

func (m *memIndex) Prepare(context.Context, int) error { return nil }

func (m *memIndex) InTx(context.Context, *sql.Tx, []store.Chunk) error { return nil }

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
		}
	}
}

// sync loads what the database has beyond what the index holds.
func (m *memIndex) sync(ctx context.Context, sourceID string, ms *memSource) error {
	after := max(0, ms.high-m.lookback())
	return m.db.SourceVectors(ctx, sourceID, after, func(r store.VectorRow) error {
		if ms.present[r.Seq] {
			return nil
		}
		if ms.ix == nil || ms.ix.Dims() != r.Dims {
			ms.ix, ms.present = vector.New(r.Dims), map[int64]bool{}
		}
		if err := ms.ix.Add(strconv.FormatInt(r.Seq, 10), r.Vector); err != nil {
			return err
		}
		ms.present[r.Seq] = true
		ms.high = max(ms.high, r.Seq)
		return nil
	})
}

func (m *memIndex) Search(ctx context.Context, _ string, sourceIDs []string, dims int, q []float32, k int) ([]VectorHit, error) {
	var out []VectorHit
	for _, id := range sourceIDs {
		ms := m.source(id)
		ms.mu.Lock()
		err := m.sync(ctx, id, ms)
		var hits []vector.Hit
		if err == nil && ms.ix != nil && ms.ix.Dims() == dims {
			hits = ms.ix.Search(q, k)
		}
		ms.mu.Unlock()
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			seq, _ := strconv.ParseInt(h.ID, 10, 64)
			out = append(out, VectorHit{Seq: seq, Score: h.Score})
		}
	}
	return out, nil
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
