package knowledge

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentry/agentry/internal/store"
	"github.com/pgvector/pgvector-go"
)

// pgIndex keeps vectors in PostgreSQL with pgvector: a table beside
// kb_chunks (rows removed with their chunk by the foreign key) and one
// partial HNSW index per vector size, on the column cast to that size,
// since an HNSW index needs fixed dimensions and sources differ.
type pgIndex struct {
	db     *store.DB
	schema string // where the extension lives: types and operators are qualified with it
	mu     sync.Mutex
	ready  map[int]bool
}

func openPGVector(ctx context.Context, db *store.DB) (*pgIndex, error) {
	ix := &pgIndex{db: db, ready: map[int]bool{}}
	schema, err := ix.extensionSchema(ctx)
	if err != nil {
		return nil, err
	}
	if schema == "" {
		// Try to install it (superuser or a trusted extension); the test
		// schemas share one installation in public.
		if _, err := db.W.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS vector SCHEMA public`); err != nil {
			// Replicas starting together may race; the winner installed it.
			if schema, _ = ix.extensionSchema(ctx); schema == "" {
				return nil, err
			}
		}
		if schema, err = ix.extensionSchema(ctx); err != nil || schema == "" {
			return nil, errors.Join(err, errors.New("vector extension not found after installing it"))
		}
	}
	ix.schema = schema
	if _, err := db.W.ExecContext(ctx, fmt.Sprintf(`CREATE TABLE IF NOT EXISTS kb_chunk_vectors (
		seq BIGINT PRIMARY KEY REFERENCES kb_chunks (seq) ON DELETE CASCADE,
		account_id TEXT NOT NULL,
		source_id TEXT NOT NULL,
		dims INTEGER NOT NULL,
		embedding %s.vector NOT NULL)`, pq(schema))); err != nil {
		return nil, err
	}
	if _, err := db.W.ExecContext(ctx, `CREATE INDEX IF NOT EXISTS kb_chunk_vectors_source ON kb_chunk_vectors (source_id)`); err != nil {
		return nil, err
	}
	if err := ix.backfill(ctx); err != nil {
		return nil, err
	}
	return ix, nil
}

func pq(ident string) string { return `"` + strings.ReplaceAll(ident, `"`, `""`) + `"` }

func (ix *pgIndex) extensionSchema(ctx context.Context) (string, error) {
	var s string
	err := ix.db.R.QueryRowContext(ctx, `SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return s, err
}

// backfill copies the vectors of chunks stored while the extension was
// missing (the in-process index served then).
func (ix *pgIndex) backfill(ctx context.Context) error {
	for {
		rows, err := ix.db.R.QueryContext(ctx, `SELECT c.seq, c.account_id, c.source_id, c.dims, c.embedding FROM kb_chunks c
			LEFT JOIN kb_chunk_vectors v ON v.seq = c.seq WHERE v.seq IS NULL ORDER BY c.seq LIMIT 500`)
		if err != nil {
			return err
		}
		var batch []Chunk
		for rows.Next() {
			var c Chunk
			var b []byte
			if err := rows.Scan(&c.Seq, &c.AccountID, &c.SourceID, &c.Dims, &b); err != nil {
				rows.Close()
				return err
			}
			c.Vector = decodeVector(b)
			batch = append(batch, c)
		}
		rows.Close()
		if len(batch) == 0 {
			return rows.Err()
		}
		dims := map[int]bool{}
		for _, c := range batch {
			dims[c.Dims] = true
		}
		for d := range dims {
			if err := ix.Prepare(ctx, d); err != nil {
				return err
			}
		}
		if err := ix.db.Tx(ctx, func(tx *sql.Tx) error { return ix.InTx(ctx, tx, batch) }); err != nil {
			return err
		}
	}
}

// pgvector's HNSW parameters, from BenchmarkPgvectorHNSW on the
// benchmark's 100,000 text vectors (hashed lexical vectors are nearly
// orthogonal, the hardest case for a graph index). With pgvector's
// defaults (m = 16, ef_construction = 64) recall@10 was 0.45 at ef_search
// 100 and 0.88 at its maximum, 1,000; with m = 24, ef_construction = 200 it
// is 0.86 at 400, 0.94 at 800 and 0.95 at 1,000. So the index is built
// denser and searched at the maximum breadth.
const (
	pgHNSWM              = 24
	pgHNSWEfConstruction = 200
	pgEfSearchMax        = 1000 // pgvector refuses more
)

// pgEfSearch is the breadth for a top-k search: the maximum for any k the
// search asks for (at most a few hundred), since recall needs it already
// at k = 10.
func pgEfSearch(int) int { return pgEfSearchMax }

func (ix *pgIndex) Name() string { return "pgvector HNSW" }

func (ix *pgIndex) Prepare(ctx context.Context, dims int) error {
	if dims <= 0 || dims > 16000 {
		return fmt.Errorf("vector size %d", dims)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.ready[dims] {
		return nil
	}
	s := pq(ix.schema)
	// HNSW indexes at most 2000 dimensions; larger vectors are searched exactly.
	if dims <= 2000 {
		_, err := ix.db.W.ExecContext(ctx, fmt.Sprintf(`CREATE INDEX IF NOT EXISTS kb_chunk_vectors_hnsw%d_%d ON kb_chunk_vectors
			USING hnsw ((embedding::%s.vector(%d)) %s.vector_cosine_ops) WITH (m = %d, ef_construction = %d) WHERE dims = %d`,
			pgHNSWM, dims, s, dims, s, pgHNSWM, pgHNSWEfConstruction, dims))
		if err != nil && !strings.Contains(err.Error(), "already exists") {
			return err
		}
		// The index of earlier versions, built with pgvector's defaults
		// (m = 16, ef_construction = 64), is replaced by the one above.
		if _, err := ix.db.W.ExecContext(ctx, fmt.Sprintf(`DROP INDEX IF EXISTS kb_chunk_vectors_hnsw_%d`, dims)); err != nil {
			return err
		}
	}
	ix.ready[dims] = true
	return nil
}

func (ix *pgIndex) InTx(ctx context.Context, tx *sql.Tx, added []Chunk) error {
	const per = 100
	for start := 0; start < len(added); start += per {
		batch := added[start:min(start+per, len(added))]
		var sb strings.Builder
		sb.WriteString(`INSERT INTO kb_chunk_vectors (seq, account_id, source_id, dims, embedding) VALUES `)
		args := make([]any, 0, 5*len(batch))
		for i, c := range batch {
			if i > 0 {
				sb.WriteString(",")
			}
			n := len(args)
			fmt.Fprintf(&sb, "($%d,$%d,$%d,$%d,$%d::%s.vector)", n+1, n+2, n+3, n+4, n+5, pq(ix.schema))
			args = append(args, c.Seq, c.AccountID, c.SourceID, c.Dims, pgvector.NewVector(c.Vector))
		}
		sb.WriteString(` ON CONFLICT (seq) DO NOTHING`)
		if _, err := tx.ExecContext(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

func (ix *pgIndex) Forget(string, []int64) {} // the foreign key removed them with their chunks

func (ix *pgIndex) Search(ctx context.Context, accountID string, sourceIDs []string, model string, dims int, q []float32, k int) ([]VectorHit, error) {
	if len(sourceIDs) == 0 || k <= 0 {
		return nil, nil
	}
	s := pq(ix.schema)
	args := []any{pgvector.NewVector(q), accountID, dims, model}
	in := make([]string, len(sourceIDs))
	for i, id := range sourceIDs {
		args = append(args, id)
		in[i] = fmt.Sprintf("$%d", len(args))
	}
	cast := fmt.Sprintf("embedding::%s.vector(%d)", s, dims)
	qv := fmt.Sprintf("$1::%s.vector(%d)", s, dims)
	// The vector table does not know the model; its chunk does. The check
	// is a primary-key lookup per candidate, after the index scan (which
	// the iterative scan continues past the candidates it drops).
	query := fmt.Sprintf(`SELECT seq, 1 - (%s OPERATOR(%s.<=>) %s) FROM kb_chunk_vectors v
		WHERE dims = $3 AND account_id = $2 AND source_id IN (%s)
		AND EXISTS (SELECT 1 FROM kb_chunks c WHERE c.seq = v.seq AND c.model = $4)
		ORDER BY %s OPERATOR(%s.<=>) %s LIMIT %d`,
		cast, s, qv, strings.Join(in, ","), cast, s, qv, k)
	var out []VectorHit
	err := ix.db.Tx(ctx, func(tx *sql.Tx) error {
		// A filtered HNSW scan may stop short of k; iterative scans go on.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`SET LOCAL hnsw.ef_search = %d`, pgEfSearch(k))); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `SET LOCAL hnsw.iterative_scan = relaxed_order`); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var h VectorHit
			var score float64
			if err := rows.Scan(&h.Seq, &score); err != nil {
				return err
			}
			h.Score = float32(score)
			out = append(out, h)
		}
		return rows.Err()
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out, err
}
