package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"time"
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

// EncodeVector packs v as little-endian float32.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector unpacks EncodeVector's bytes.
func DecodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// ErrStaleVersion means the content moved to another version (or was
// deleted) while a job worked on an older one; its work is dropped.
var ErrStaleVersion = errors.New("content version is no longer current")

// ErrEmbeddingChanged means the source moved to another embedding model or
// size (an embedding migration switched) while a job embedded with the old
// one; the job must embed again.
var ErrEmbeddingChanged = errors.New("the source's embedding model changed while the content was embedded")

// lockSourceEmbedding takes the source's row lock for the rest of the
// transaction and returns its embedding model and size. Both SwapChunks and
// the knowledge area's embedding switch take it first, so they serialise on the source:
// whichever commits second sees the other's result (an update blocked on a
// row lock re-reads the row on PostgreSQL; SQLite has one writer).
func lockSourceEmbedding(ctx context.Context, tx *sql.Tx, sourceID string) (model string, dims int, err error) {
	err = tx.QueryRowContext(ctx, `UPDATE sources SET dimensions = dimensions WHERE id = $1 RETURNING embedding_model, dimensions`,
		sourceID).Scan(&model, &dims)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrStaleVersion
	}
	return model, dims, err
}

// LockSourceEmbedding is lockSourceEmbedding, lent to the knowledge
// area's embedding migrations (their switch takes the same lock).
func LockSourceEmbedding(ctx context.Context, tx *sql.Tx, sourceID string) (model string, dims int, err error) {
	return lockSourceEmbedding(ctx, tx, sourceID)
}

// InsertChunks inserts chunks in tx at now, setting their ids where empty
// (lent to the knowledge area's embedding migrations).
func (db *DB) InsertChunks(ctx context.Context, tx *sql.Tx, chunks []Chunk, now time.Time) error {
	return insertChunks(ctx, tx, db.Dialect, chunks, now)
}

// SwapChunks replaces, in one transaction, every chunk of a content item by
// the chunks of its version versionID and marks the content indexed. The
// search index never shows the old and new versions together, nor neither.
// inTx runs inside the transaction with the removed and added chunks (seqs
// set), for an index kept in the database (pgvector) and for jobs that must
// commit with the chunks. It fails with ErrStaleVersion when versionID is
// no longer the content's current version, and with ErrEmbeddingChanged
// when the source's embedding model or size is no longer model and dims
// (the chunks were embedded for an index that a migration replaced).
func (db *DB) SwapChunks(ctx context.Context, sourceID, contentID, versionID, model string, dims int, chunks []Chunk,
	inTx func(tx *sql.Tx, conn *sql.Conn, removed []int64, added []Chunk) error) (removed []int64, err error) {
	now := Now()
	err = db.TxConn(ctx, func(tx *sql.Tx, conn *sql.Conn) error {
		removed = removed[:0]
		curModel, curDims, err := lockSourceEmbedding(ctx, tx, sourceID)
		if err != nil {
			return err
		}
		if curModel != model || curDims != dims {
			return ErrEmbeddingChanged
		}
		var cur string
		if err := tx.QueryRowContext(ctx, `SELECT version_id FROM contents WHERE id = $1`, contentID).Scan(&cur); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return ErrStaleVersion
			}
			return err
		}
		if cur != versionID {
			return ErrStaleVersion
		}
		rows, err := tx.QueryContext(ctx, `DELETE FROM kb_chunks WHERE content_id = $1 RETURNING seq`, contentID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var s int64
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return err
			}
			removed = append(removed, s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if err := insertChunks(ctx, tx, db.Dialect, chunks, now); err != nil {
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

// insertChunks writes chunks in multi-row statements, setting their Seq.
// SQLite gets anonymous ? parameters: with $N, its driver looks each
// parameter's name up in a list as long as the statement's parameters, so
// binding a 900-parameter insert cost a tenth of ingestion's CPU.
func insertChunks(ctx context.Context, tx *sql.Tx, d Dialect, chunks []Chunk, now time.Time) error {
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
				c.ID = NewID()
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
				if d == SQLite {
					sb.WriteString("?")
				} else {
					sb.WriteString("$" + itoa(len(args)+j+1))
				}
			}
			sb.WriteString(")")
			args = append(args, c.ID, c.AccountID, c.SourceID, c.ContentID, c.VersionID, c.Ordinal, c.TextStart, c.TextEnd,
				c.Text, c.Model, c.Dims, EncodeVector(c.Vector), c.BatchSize, c.BatchDuration, now)
		}
		sb.WriteString(" RETURNING seq")
		rows, err := tx.QueryContext(ctx, sb.String(), args...)
		if err != nil {
			return err
		}
		i := 0
		for rows.Next() {
			if i < len(batch) {
				if err := rows.Scan(&batch[i].Seq); err != nil {
					rows.Close()
					return err
				}
			}
			i++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

const chunkColumns = `seq, id, account_id, source_id, content_id, version_id, ordinal, text_start, text_end, text, model, dims, embedding, batch_size, batch_duration, created_at`

func scanChunk(r rowScanner) (Chunk, error) {
	var c Chunk
	var emb []byte
	if err := r.Scan(&c.Seq, &c.ID, &c.AccountID, &c.SourceID, &c.ContentID, &c.VersionID, &c.Ordinal, &c.TextStart, &c.TextEnd,
		&c.Text, &c.Model, &c.Dims, &emb, &c.BatchSize, &c.BatchDuration, &c.CreatedAt); err != nil {
		return c, err
	}
	c.Vector = DecodeVector(emb)
	c.CreatedAt = c.CreatedAt.UTC()
	return c, nil
}

func scanChunks(rows *sql.Rows, err error) ([]Chunk, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// ContentChunks lists a page of a content item's chunks of the account, in
// order, and their total.
func (db *DB) ContentChunks(ctx context.Context, accountID, contentID string, offset, limit int) ([]Chunk, int, error) {
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM kb_chunks WHERE account_id = $1 AND content_id = $2`, accountID, contentID).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := scanChunks(db.R.QueryContext(ctx, `SELECT `+chunkColumns+` FROM kb_chunks WHERE account_id = $1 AND content_id = $2
		ORDER BY ordinal LIMIT $3 OFFSET $4`, accountID, contentID, limit, offset))
	return out, total, err
}

// ChunksBySeq returns the account's chunks with the given seqs (those that
// still exist), in no particular order.
func (db *DB) ChunksBySeq(ctx context.Context, accountID string, seqs []int64) ([]Chunk, error) {
	if len(seqs) == 0 {
		return nil, nil
	}
	args := []any{accountID}
	var in strings.Builder
	for i, s := range seqs {
		if i > 0 {
			in.WriteString(",")
		}
		args = append(args, s)
		in.WriteString("$" + itoa(len(args)))
	}
	return scanChunks(db.R.QueryContext(ctx, `SELECT `+chunkColumns+` FROM kb_chunks WHERE account_id = $1 AND seq IN (`+in.String()+`)`, args...))
}

// ChunksOfContents returns every chunk of the account's given contents.
func (db *DB) ChunksOfContents(ctx context.Context, accountID string, contentIDs []string) ([]Chunk, error) {
	if len(contentIDs) == 0 {
		return nil, nil
	}
	args := []any{accountID}
	var in strings.Builder
	for i, id := range contentIDs {
		if i > 0 {
			in.WriteString(",")
		}
		args = append(args, id)
		in.WriteString("$" + itoa(len(args)))
	}
	return scanChunks(db.R.QueryContext(ctx, `SELECT `+chunkColumns+` FROM kb_chunks WHERE account_id = $1 AND content_id IN (`+in.String()+`)`, args...))
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
func (db *DB) SourceVectors(ctx context.Context, sourceID string, after int64, fn func(VectorRow) error) error {
	// Only the generation the source names: during an embedding
	// migration's switch, chunks of both are stored side by side.
	return scanVectorRows(db.R.QueryContext(ctx, `SELECT seq, source_id, dims, embedding FROM kb_chunks c WHERE source_id = $1 AND seq > $2
		AND EXISTS (SELECT 1 FROM sources s WHERE s.id = c.source_id AND s.embedding_model = c.model AND s.dimensions = c.dims) ORDER BY seq`, sourceID, after))(fn)
}

// SourceVectorsOf calls fn with every chunk vector of a source's
// generation (model, dims), whether or not the source names it yet: an
// embedding migration builds the new generation's index from them before
// its switch.
func (db *DB) SourceVectorsOf(ctx context.Context, sourceID, model string, dims int, fn func(VectorRow) error) error {
	return scanVectorRows(db.R.QueryContext(ctx, `SELECT seq, source_id, dims, embedding FROM kb_chunks
		WHERE source_id = $1 AND model = $2 AND dims = $3 ORDER BY seq`, sourceID, model, dims))(fn)
}

func scanVectorRows(rows *sql.Rows, err error) func(fn func(VectorRow) error) error {
	return func(fn func(VectorRow) error) error {
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r VectorRow
			var emb []byte
			if err := rows.Scan(&r.Seq, &r.SourceID, &r.Dims, &emb); err != nil {
				return err
			}
			r.Vector = DecodeVector(emb)
			if err := fn(r); err != nil {
				return err
			}
		}
		return rows.Err()
	}
}

// SourceChunkSeqs returns the seq of every chunk of a source (the in-process
// vector index reconciles a loaded snapshot with it).
func (db *DB) SourceChunkSeqs(ctx context.Context, sourceID string) ([]int64, error) {
	return db.int64s(ctx, `SELECT seq FROM kb_chunks WHERE source_id = $1`, sourceID)
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

func scanPassages(rows *sql.Rows, err error, fn func(PassageRow) error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r PassageRow
		var title, desc sql.NullString
		if err := rows.Scan(&r.Seq, &r.ContentID, &r.Text, &title, &desc, &r.Metadata); err != nil {
			return err
		}
		r.Title, r.Description = StringOrNil(title), StringOrNil(desc)
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// SourcePassages calls fn with every chunk of a source whose seq is above
// after, in seq order, with its content's heading fields.
func (db *DB) SourcePassages(ctx context.Context, sourceID string, after int64, fn func(PassageRow) error) error {
	rows, err := db.R.QueryContext(ctx, `SELECT `+passageColumns+` FROM kb_chunks c JOIN contents ct ON ct.id = c.content_id
		WHERE c.source_id = $1 AND c.seq > $2 ORDER BY c.seq`, sourceID, after)
	return scanPassages(rows, err, fn)
}

// SourcePassagesBySeq calls fn with the chunks of a source among seqs.
func (db *DB) SourcePassagesBySeq(ctx context.Context, sourceID string, seqs []int64, fn func(PassageRow) error) error {
	if len(seqs) == 0 {
		return nil
	}
	args := []any{sourceID}
	var in strings.Builder
	for i, s := range seqs {
		if i > 0 {
			in.WriteString(",")
		}
		args = append(args, s)
		in.WriteString("$" + itoa(len(args)))
	}
	rows, err := db.R.QueryContext(ctx, `SELECT `+passageColumns+` FROM kb_chunks c JOIN contents ct ON ct.id = c.content_id
		WHERE c.source_id = $1 AND c.seq IN (`+in.String()+`) ORDER BY c.seq`, args...)
	return scanPassages(rows, err, fn)
}

// SourceChunkSeqsAbove returns the seqs of a source's chunks above after.
func (db *DB) SourceChunkSeqsAbove(ctx context.Context, sourceID string, after int64) ([]int64, error) {
	return db.int64s(ctx, `SELECT seq FROM kb_chunks WHERE source_id = $1 AND seq > $2`, sourceID, after)
}

// int64s reads a query's one integer column.
func (db *DB) int64s(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := db.R.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var s int64
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
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
func (db *DB) ChunkVectorsBySeq(ctx context.Context, accountID string, seqs []int64) ([]ChunkVector, error) {
	if len(seqs) == 0 {
		return nil, nil
	}
	args := []any{accountID}
	var in strings.Builder
	for i, s := range seqs {
		if i > 0 {
			in.WriteString(",")
		}
		args = append(args, s)
		in.WriteString("$" + itoa(len(args)))
	}
	rows, err := db.R.QueryContext(ctx, `SELECT seq, source_id, content_id, embedding FROM kb_chunks WHERE account_id = $1 AND seq IN (`+in.String()+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ChunkVector
	for rows.Next() {
		var v ChunkVector
		var b []byte
		if err := rows.Scan(&v.Seq, &v.SourceID, &v.ContentID, &b); err != nil {
			return nil, err
		}
		v.Vector = DecodeVector(b)
		out = append(out, v)
	}
	return out, rows.Err()
}
