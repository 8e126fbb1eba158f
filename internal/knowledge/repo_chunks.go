package knowledge

// The chunks' SQL: kb_chunks, the indexed passages of a content version
// with their embeddings, are the area's own.

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Chunk is one indexed passage of a content version with its embedding.
type Chunk struct {
	Seq                                           int64 // the index's key, assigned on insert
	ID, AccountID, SourceID, ContentID, VersionID string
	Ordinal, TextStart, TextEnd                   int
	Text, Model                                   string
	Dims                                          int
	Vector                                        []float32
	BatchSize                                     int
	BatchDuration                                 float64
	CreatedAt                                     time.Time
}

// encodeVector packs v as little-endian float32.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector unpacks encodeVector's bytes.
func decodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// errStaleVersion means the content moved to another version (or was
// deleted) while a job worked on an older one; its work is dropped.
var errStaleVersion = errors.New("content version is no longer current")

// errEmbeddingChanged means the source moved to another embedding model or
// size (an embedding migration switched) while a job embedded with the old
// one; the job must embed again.
var errEmbeddingChanged = errors.New("the source's embedding model changed while the content was embedded")

// lockSourceEmbedding takes the source's row lock for the rest of the
// transaction and returns its embedding model and size. Both SwapChunks and
// the embedding migrations' switch take it first, so they serialise on the
// source: whichever commits second sees the other's result (an update
// blocked on a row lock re-reads the row on PostgreSQL; SQLite has one
// writer).
func lockSourceEmbedding(ctx context.Context, tx *sql.Tx, sourceID string) (model string, dims int, err error) {
	err = tx.QueryRowContext(ctx, `UPDATE sources SET dimensions = dimensions WHERE id = $1 RETURNING embedding_model, dimensions`,
		sourceID).Scan(&model, &dims)
	if errors.Is(err, sql.ErrNoRows) {
		err = errStaleVersion
	}
	return model, dims, err
}

// SwapChunks replaces, in one transaction, every chunk of a content item by
// the chunks of its version versionID and marks the content indexed. The
// search index never shows the old and new versions together, nor neither.
// inTx runs inside the transaction with the removed and added chunks (seqs
// set), for an index kept in the database (pgvector) and for jobs that must
// commit with the chunks. It fails with errStaleVersion when versionID is
// no longer the content's current version, and with errEmbeddingChanged
// when the source's embedding model or size is no longer model and dims
// (the chunks were embedded for an index that a migration replaced).
func (r repo) SwapChunks(ctx context.Context, sourceID, contentID, versionID, model string, dims int, chunks []Chunk,
	inTx func(tx *sql.Tx, conn *sql.Conn, removed []int64, added []Chunk) error) (removed []int64, err error) {
	now := store.Now()
	err = r.db.TxConn(ctx, func(tx *sql.Tx, conn *sql.Conn) error {
		curModel, curDims, err := lockSourceEmbedding(ctx, tx, sourceID)
		if err != nil {
			return err
		}
		if curModel != model || curDims != dims {
			return errEmbeddingChanged
		}
		var cur string
		if err := tx.QueryRowContext(ctx, `SELECT version_id FROM contents WHERE id = $1`, contentID).Scan(&cur); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return errStaleVersion
			}
			return err
		}
		if cur != versionID {
			return errStaleVersion
		}
		if removed, err = deleteContentChunks(ctx, tx, contentID); err != nil {
			return err
		}
		if err := r.insertChunks(ctx, tx, chunks, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE contents SET status = $1, error = NULL, chunk_count = $2, indexed_at = $3, updated_at = $3
			WHERE id = $4`, ContentIndexed, len(chunks), now, contentID); err != nil {
			return err
		}
		if inTx != nil {
			return inTx(tx, conn, removed, chunks)
		}
		return nil
	})
	return removed, err
}

// deleteContentChunks removes every chunk of a content item in tx and
// answers their seqs (for the search index).
func deleteContentChunks(ctx context.Context, tx *sql.Tx, contentID string) ([]int64, error) {
	return store.All(ctx, tx, scanInt64, `DELETE FROM kb_chunks WHERE content_id = $1 RETURNING seq`, contentID)
}

func scanInt64(r store.Scanner) (int64, error) {
	var n int64
	err := r.Scan(&n)
	return n, err
}

// insertChunks writes chunks in tx at now, in multi-row statements,
// setting their ids where empty and their Seq. SQLite gets anonymous ?
// parameters: with $N, its driver looks each parameter's name up in a list
// as long as the statement's parameters, so binding a 900-parameter insert
// cost a tenth of ingestion's CPU.
func (r repo) insertChunks(ctx context.Context, tx *sql.Tx, chunks []Chunk, now time.Time) error {
	const cols = 15
	const perStmt = 60 // well under both dialects' parameter limits
	for start := 0; start < len(chunks); start += perStmt {
		batch := chunks[start:min(start+perStmt, len(chunks))]
		var sb strings.Builder
		sb.WriteString(`INSERT INTO kb_chunks (id, account_id, source_id, content_id, version_id, ordinal, text_start, text_end,
			text, model, dims, embedding, batch_size, batch_duration, created_at) VALUES `)
		args := make([]any, 0, len(batch)*cols)
		for i := range batch {
			c := &batch[i]
			if c.ID == "" {
				c.ID = store.NewID()
			}
			c.CreatedAt = now
			if i > 0 {
				sb.WriteString(",")
			}
			sb.WriteString("(")
			for j := 0; j < cols; j++ {
				if j > 0 {
					sb.WriteString(",")
				}
				if r.db.Dialect == store.SQLite {
					sb.WriteString("?")
				} else {
					sb.WriteString("$" + strconv.Itoa(len(args)+j+1))
				}
			}
			sb.WriteString(")")
			args = append(args, c.ID, c.AccountID, c.SourceID, c.ContentID, c.VersionID, c.Ordinal, c.TextStart, c.TextEnd,
				c.Text, c.Model, c.Dims, encodeVector(c.Vector), c.BatchSize, c.BatchDuration, now)
		}
		sb.WriteString(" RETURNING seq")
		seqs, err := store.All(ctx, tx, scanInt64, sb.String(), args...)
		if err != nil {
			return err
		}
		for i := range min(len(seqs), len(batch)) {
			batch[i].Seq = seqs[i]
		}
	}
	return nil
}

const chunkColumns = `seq, id, account_id, source_id, content_id, version_id, ordinal, text_start, text_end, text, model, dims, embedding, batch_size, batch_duration, created_at`

func scanChunk(r store.Scanner) (Chunk, error) {
	var c Chunk
	var emb []byte
	if err := r.Scan(&c.Seq, &c.ID, &c.AccountID, &c.SourceID, &c.ContentID, &c.VersionID, &c.Ordinal, &c.TextStart, &c.TextEnd,
		&c.Text, &c.Model, &c.Dims, &emb, &c.BatchSize, &c.BatchDuration, &c.CreatedAt); err != nil {
		return c, err
	}
	c.Vector = decodeVector(emb)
	c.CreatedAt = c.CreatedAt.UTC()
	return c, nil
}

// ContentChunks lists a page of a content item's chunks of the account, in
// order, and their total.
func (r repo) ContentChunks(ctx context.Context, accountID, contentID string, offset, limit int) ([]Chunk, int, error) {
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM kb_chunks WHERE account_id = $1 AND content_id = $2`, accountID, contentID).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := store.All(ctx, r.db.R, scanChunk, `SELECT `+chunkColumns+` FROM kb_chunks WHERE account_id = $1 AND content_id = $2
		ORDER BY ordinal LIMIT $3 OFFSET $4`, accountID, contentID, limit, offset)
	return out, total, err
}

// inArgs returns first followed by ids, and the placeholders of the ids
// ($2, $3, …), for an IN list after one leading parameter.
func inArgs[T any](first any, ids []T) (string, []any) {
	args := make([]any, 0, len(ids)+1)
	args = append(args, first)
	for _, id := range ids {
		args = append(args, id)
	}
	return store.Placeholders(2, len(ids)), args
}

// ChunksBySeq returns the account's chunks with the given seqs (those that
// still exist), in no particular order.
func (r repo) ChunksBySeq(ctx context.Context, accountID string, seqs []int64) ([]Chunk, error) {
	if len(seqs) == 0 {
		return nil, nil
	}
	in, args := inArgs(accountID, seqs)
	return store.All(ctx, r.db.R, scanChunk, `SELECT `+chunkColumns+` FROM kb_chunks WHERE account_id = $1 AND seq IN (`+in+`)`, args...)
}

// ChunksOfContents returns every chunk of the account's given contents.
func (r repo) ChunksOfContents(ctx context.Context, accountID string, contentIDs []string) ([]Chunk, error) {
	if len(contentIDs) == 0 {
		return nil, nil
	}
	in, args := inArgs(accountID, contentIDs)
	return store.All(ctx, r.db.R, scanChunk, `SELECT `+chunkColumns+` FROM kb_chunks WHERE account_id = $1 AND content_id IN (`+in+`)`, args...)
}

// VectorRow is a chunk's place in the vector index.
type VectorRow struct {
	Seq      int64
	SourceID string
	Dims     int
	Vector   []float32
}

// SourceVectors calls fn with every chunk vector of a source whose seq is
// above after, in seq order.
func (r repo) SourceVectors(ctx context.Context, sourceID string, after int64, fn func(VectorRow) error) error {
	// Only the generation the source names: during an embedding
	// migration's switch, chunks of both are stored side by side.
	return scanVectorRows(r.db.R.QueryContext(ctx, `SELECT seq, source_id, dims, embedding FROM kb_chunks c WHERE source_id = $1 AND seq > $2
		AND EXISTS (SELECT 1 FROM sources s WHERE s.id = c.source_id AND s.embedding_model = c.model AND s.dimensions = c.dims) ORDER BY seq`, sourceID, after))(fn)
}

// SourceVectorsOf calls fn with every chunk vector of a source's
// generation (model, dims), whether or not the source names it yet: an
// embedding migration builds the new generation's index from them before
// its switch.
func (r repo) SourceVectorsOf(ctx context.Context, sourceID, model string, dims int, fn func(VectorRow) error) error {
	return scanVectorRows(r.db.R.QueryContext(ctx, `SELECT seq, source_id, dims, embedding FROM kb_chunks
		WHERE source_id = $1 AND model = $2 AND dims = $3 ORDER BY seq`, sourceID, model, dims))(fn)
}

// scanVectorRows streams the rows to fn (a source's vectors need not fit
// in memory twice), so it keeps its own loop rather than store.All.
func scanVectorRows(rows *sql.Rows, err error) func(fn func(VectorRow) error) error {
	return func(fn func(VectorRow) error) error {
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var v VectorRow
			var emb []byte
			if err := rows.Scan(&v.Seq, &v.SourceID, &v.Dims, &emb); err != nil {
				return err
			}
			v.Vector = decodeVector(emb)
			if err := fn(v); err != nil {
				return err
			}
		}
		return rows.Err()
	}
}

// SourceChunkSeqs returns the seq of every chunk of a source (the in-process
// vector index reconciles a loaded snapshot with it).
func (r repo) SourceChunkSeqs(ctx context.Context, sourceID string) ([]int64, error) {
	return store.All(ctx, r.db.R, scanInt64, `SELECT seq FROM kb_chunks WHERE source_id = $1`, sourceID)
}

// SourceChunkSeqsAbove returns the seqs of a source's chunks above after.
func (r repo) SourceChunkSeqsAbove(ctx context.Context, sourceID string, after int64) ([]int64, error) {
	return store.All(ctx, r.db.R, scanInt64, `SELECT seq FROM kb_chunks WHERE source_id = $1 AND seq > $2`, sourceID, after)
}

// PassageRow is what the in-process lexical index holds of a chunk: its
// text, and its content's title, description and metadata (raw JSON), of
// which the index builds the passage's heading.
type PassageRow struct {
	Seq                int64
	ContentID, Text    string
	Title, Description *string
	Metadata           string
}

const passageColumns = `c.seq, c.content_id, c.text, ct.title, ct.description, ct.metadata`

// scanPassages streams the rows to fn, as scanVectorRows does.
func scanPassages(rows *sql.Rows, err error, fn func(PassageRow) error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var p PassageRow
		var title, desc sql.NullString
		if err := rows.Scan(&p.Seq, &p.ContentID, &p.Text, &title, &desc, &p.Metadata); err != nil {
			return err
		}
		p.Title, p.Description = store.StringOrNil(title), store.StringOrNil(desc)
		if err := fn(p); err != nil {
			return err
		}
	}
	return rows.Err()
}

// SourcePassages calls fn with every chunk of a source whose seq is above
// after, in seq order, with its content's heading fields.
func (r repo) SourcePassages(ctx context.Context, sourceID string, after int64, fn func(PassageRow) error) error {
	rows, err := r.db.R.QueryContext(ctx, `SELECT `+passageColumns+` FROM kb_chunks c JOIN contents ct ON ct.id = c.content_id
		WHERE c.source_id = $1 AND c.seq > $2 ORDER BY c.seq`, sourceID, after)
	return scanPassages(rows, err, fn)
}

// SourcePassagesBySeq calls fn with the chunks of a source among seqs.
func (r repo) SourcePassagesBySeq(ctx context.Context, sourceID string, seqs []int64, fn func(PassageRow) error) error {
	if len(seqs) == 0 {
		return nil
	}
	in, args := inArgs(sourceID, seqs)
	rows, err := r.db.R.QueryContext(ctx, `SELECT `+passageColumns+` FROM kb_chunks c JOIN contents ct ON ct.id = c.content_id
		WHERE c.source_id = $1 AND c.seq IN (`+in+`) ORDER BY c.seq`, args...)
	return scanPassages(rows, err, fn)
}

// ChunkVector is a chunk's embedding, for scoring a candidate of the
// lexical side against the query's vector.
type ChunkVector struct {
	Seq       int64
	SourceID  string
	ContentID string
	Vector    []float32
}

// ChunkVectorsBySeq returns the embeddings of the account's chunks among
// seqs (those that still exist), in no particular order.
func (r repo) ChunkVectorsBySeq(ctx context.Context, accountID string, seqs []int64) ([]ChunkVector, error) {
	if len(seqs) == 0 {
		return nil, nil
	}
	in, args := inArgs(accountID, seqs)
	return store.All(ctx, r.db.R, func(row store.Scanner) (ChunkVector, error) {
		var v ChunkVector
		var b []byte
		err := row.Scan(&v.Seq, &v.SourceID, &v.ContentID, &b)
		v.Vector = decodeVector(b)
		return v, err
	}, `SELECT seq, source_id, content_id, embedding FROM kb_chunks WHERE account_id = $1 AND seq IN (`+in+`)`, args...)
}
