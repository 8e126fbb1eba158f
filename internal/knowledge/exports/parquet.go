package exports

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// The Parquet writer is our own, for the one fixed schema below, so the
// binary does not link a general Parquet library and its codecs for one
// export format. It writes what every Parquet reader reads: version 1
// data pages, PLAIN encoding, GZIP compression, and a footer with the
// schema and each column chunk's metadata, encoded with Thrift's compact
// protocol (thrift.go). No statistics, dictionaries or page indexes: a
// reader does without them.
//
// GZIP is the only Parquet codec the standard library has (snappy, zstd,
// brotli and lz4 would bring a dependency back). Every column is
// compressed: the text is most of the file and compresses about three
// times, and the short columns (ids sharing a prefix, URLs of one site,
// the same status and content type row after row, metadata objects of the
// same keys) compress eight times or more for little time, being small.
// Level 1 (BestSpeed): on the benchmark's 30 MB of text the default level
// wrote a file a fifth smaller in five to six times the time, and an
// export is written while its job holds a worker. (The numbers are in
// docs/performance.md.)

// A Parquet writer buffers a row group in memory before writing it; these
// bound the group by rows and by bytes of values (most of them text), and
// so an export's memory.
const (
	parquetRowGroup      = 256
	parquetRowGroupBytes = 16 << 20
	// parquetPageBytes splits a column chunk into pages of about this
	// many bytes of values, the size readers expect, so a row group of
	// large texts is compressed (and read) a page at a time.
	parquetPageBytes = 1 << 20
	parquetGzipLevel = gzip.BestSpeed
)

// Parquet's enumerations, as parquet.thrift numbers them.
const (
	pqInt64     = 2 // physical types
	pqByteArray = 6

	pqRequired = 0 // repetition
	pqOptional = 1

	pqUTF8            = 0 // converted types, for readers older than logical types
	pqTimestampMillis = 9
	pqInt64Converted  = 18

	pqPlain = 0 // encodings
	pqRLE   = 3

	pqGzip     = 2 // compression codec
	pqDataPage = 0 // page type
)

// pqKind is what a column holds, which fixes its physical and logical type.
type pqKind int

const (
	pqString    pqKind = iota // BYTE_ARRAY, String
	pqInteger                 // INT64, Int(64, signed)
	pqTimestamp               // INT64, Timestamp(UTC, milliseconds)
)

// parquetSchema is the file's columns, in the order of Record's fields.
var parquetSchema = [...]struct {
	name     string
	kind     pqKind
	optional bool
}{
	{"id", pqString, false},
	{"source_connection_id", pqString, false},
	{"content_version_id", pqString, false},
	{"version", pqInteger, false},
	{"title", pqString, false},
	{"url", pqString, false},
	{"content_type", pqString, false},
	{"status", pqString, false},
	{"metadata", pqString, false}, // a JSON object
	{"text", pqString, false},
	{"created_at", pqTimestamp, false},
	{"updated_at", pqTimestamp, false},
	{"published_at", pqTimestamp, true},
}

// pqColumn is one column's values in the current row group, PLAIN-encoded,
// cut into pages as they come.
type pqColumn struct {
	values  []byte
	defined []bool // per row, for an optional column: whether it has a value
	rows    int
	pages   []pqPageEnd
}

// pqPageEnd is where a page ends: in the column's values, and in its rows.
type pqPageEnd struct{ values, rows int }

// pqChunk is what the footer says of one column chunk written.
type pqChunk struct {
	offset, values, uncompressed, compressed int64
}

type pqRowGroup struct {
	rows, offset, uncompressed, compressed int64
	chunks                                 []pqChunk
}

type parquetWriter struct {
	w       io.Writer
	offset  int64 // bytes written to w
	cols    [len(parquetSchema)]pqColumn
	rows    int // in the current row group
	bytes   int // of values in the current row group
	total   int64
	groups  []pqRowGroup // kept for the footer: a few dozen bytes a group
	zip     *gzip.Writer
	zbuf    bytes.Buffer // one page, compressed
	levels  []byte
	thrift  thriftWriter
	err     error // the first error; every later call returns it
	started bool
}

var errParquetClosed = errors.New("parquet writer closed")

func newParquetWriter(w io.Writer) *parquetWriter { return &parquetWriter{w: w} }

func (p *parquetWriter) Write(r Record) error {
	if p.err != nil {
		return p.err
	}
	meta, err := json.Marshal(normal(r).Metadata)
	if err != nil {
		return err
	}
	p.str(0, r.ID)
	p.str(1, r.SourceID)
	p.str(2, r.VersionID)
	p.int64(3, int64(r.Version))
	p.str(4, r.Title)
	p.str(5, r.URL)
	p.str(6, r.ContentType)
	p.str(7, r.Status)
	p.str(8, string(meta))
	p.str(9, r.Text)
	p.int64(10, r.CreatedAt.UnixMilli())
	p.int64(11, r.UpdatedAt.UnixMilli())
	p.optionalTimestamp(12, r.PublishedAt)
	if p.rows++; p.rows >= parquetRowGroup || p.bytes >= parquetRowGroupBytes {
		p.err = p.flush()
	}
	return p.err
}

func (p *parquetWriter) str(i int, s string) {
	c := &p.cols[i]
	c.values = binary.LittleEndian.AppendUint32(c.values, uint32(len(s)))
	c.values = append(c.values, s...)
	p.bytes += 4 + len(s)
	p.row(c)
}

func (p *parquetWriter) int64(i int, v int64) {
	c := &p.cols[i]
	c.values = binary.LittleEndian.AppendUint64(c.values, uint64(v))
	p.bytes += 8
	p.row(c)
}

// optionalTimestamp stores the row's definition level, and its value if
// it has one; a null is only its level.
func (p *parquetWriter) optionalTimestamp(i int, t *time.Time) {
	c := &p.cols[i]
	c.defined = append(c.defined, t != nil)
	if t != nil {
		p.int64(i, t.UnixMilli())
	} else {
		p.row(c)
	}
}

func (p *parquetWriter) row(c *pqColumn) {
	c.rows++
	start := 0
	if len(c.pages) > 0 {
		start = c.pages[len(c.pages)-1].values
	}
	if len(c.values)-start >= parquetPageBytes {
		c.pages = append(c.pages, pqPageEnd{len(c.values), c.rows})
	}
}

func (p *parquetWriter) Close() error {
	if p.err != nil {
		return p.err
	}
	if p.rows > 0 {
		if p.err = p.flush(); p.err != nil {
			return p.err
		}
	}
	if p.err = p.footer(); p.err != nil {
		return p.err
	}
	p.err = errParquetClosed
	return nil
}

// write writes to the file, counting the offset the footer refers to.
func (p *parquetWriter) write(b []byte) error {
	n, err := p.w.Write(b)
	p.offset += int64(n)
	return err
}

var parquetMagic = []byte("PAR1")

// flush writes the buffered row group, each column chunk a page or more.
func (p *parquetWriter) flush() error {
	if !p.started {
		p.started = true
		if err := p.write(parquetMagic); err != nil {
			return err
		}
	}
	g := pqRowGroup{rows: int64(p.rows), offset: p.offset, chunks: make([]pqChunk, len(p.cols))}
	for i := range p.cols {
		c := &p.cols[i]
		if len(c.pages) == 0 || c.pages[len(c.pages)-1].rows < c.rows {
			c.pages = append(c.pages, pqPageEnd{len(c.values), c.rows})
		}
		ch := pqChunk{offset: p.offset, values: int64(c.rows)}
		from := pqPageEnd{}
		for _, to := range c.pages {
			u, z, err := p.page(c, parquetSchema[i].optional, from, to)
			if err != nil {
				return fmt.Errorf("parquet column %s: %w", parquetSchema[i].name, err)
			}
			ch.uncompressed += u
			ch.compressed += z
			from = to
		}
		g.chunks[i] = ch
		g.uncompressed += ch.uncompressed
		g.compressed += ch.compressed
		c.values, c.defined, c.rows, c.pages = c.values[:0], c.defined[:0], 0, c.pages[:0]
	}
	p.groups = append(p.groups, g)
	p.total += int64(p.rows)
	p.rows, p.bytes = 0, 0
	return nil
}

// page compresses and writes one data page of rows from to to, and gives
// its size with its header, uncompressed and as written.
func (p *parquetWriter) page(c *pqColumn, optional bool, from, to pqPageEnd) (int64, int64, error) {
	p.zbuf.Reset()
	if p.zip == nil {
		p.zip, _ = gzip.NewWriterLevel(&p.zbuf, parquetGzipLevel) // the level is valid
	} else {
		p.zip.Reset(&p.zbuf)
	}
	size := to.values - from.values
	if optional {
		p.levels = definitionLevels(p.levels[:0], c.defined[from.rows:to.rows])
		size += len(p.levels)
		if _, err := p.zip.Write(p.levels); err != nil {
			return 0, 0, err
		}
	}
	if _, err := p.zip.Write(c.values[from.values:to.values]); err != nil {
		return 0, 0, err
	}
	if err := p.zip.Close(); err != nil {
		return 0, 0, err
	}
	if size > math.MaxInt32 || p.zbuf.Len() > math.MaxInt32 {
		return 0, 0, errors.New("a value too large for a Parquet page")
	}
	t := &p.thrift
	t.reset()
	t.begin()
	t.i32(1, pqDataPage)
	t.i32(2, int32(size))
	t.i32(3, int32(p.zbuf.Len()))
	t.structField(5) // DataPageHeader
	t.i32(1, int32(to.rows-from.rows))
	t.i32(2, pqPlain)
	t.i32(3, pqRLE) // definition levels
	t.i32(4, pqRLE) // repetition levels (none: the schema is flat)
	t.end()
	t.end()
	if err := p.write(t.buf); err != nil {
		return 0, 0, err
	}
	if err := p.write(p.zbuf.Bytes()); err != nil {
		return 0, 0, err
	}
	h := int64(len(t.buf))
	return h + int64(size), h + int64(p.zbuf.Len()), nil
}

// definitionLevels encodes an optional column's levels (1 for a value, 0
// for null) as a data page v1 holds them: a 4-byte length, then the
// RLE/bit-packed hybrid encoding at bit width 1, here as one bit-packed
// run of groups of 8 (the last group padded with zeros, as the encoding
// allows).
func definitionLevels(dst []byte, defined []bool) []byte {
	groups := (len(defined) + 7) / 8
	var h [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(h[:], uint64(groups)<<1|1)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n+groups))
	dst = append(dst, h[:n]...)
	start := len(dst)
	dst = append(dst, make([]byte, groups)...)
	for i, d := range defined {
		if d {
			dst[start+i/8] |= 1 << (i % 8)
		}
	}
	return dst
}

// footer writes the file metadata (FileMetaData in parquet.thrift), its
// length and the closing magic number; a file of no rows is the magic
// number and a footer of no row groups.
func (p *parquetWriter) footer() error {
	if !p.started {
		p.started = true
		if err := p.write(parquetMagic); err != nil {
			return err
		}
	}
	t := &p.thrift
	t.reset()
	t.begin()
	t.i32(1, 1) // format version
	t.list(2, thriftStruct, 1+len(parquetSchema))
	t.begin() // the root
	t.str(4, "schema")
	t.i32(5, int32(len(parquetSchema)))
	t.end()
	for _, col := range parquetSchema {
		t.begin()
		rep := int32(pqRequired)
		if col.optional {
			rep = pqOptional
		}
		switch col.kind {
		case pqString:
			t.i32(1, pqByteArray)
			t.i32(3, rep)
			t.str(4, col.name)
			t.i32(6, pqUTF8)
			t.structField(10) // LogicalType
			t.structField(1)  // StringType
			t.end()
			t.end()
		case pqInteger:
			t.i32(1, pqInt64)
			t.i32(3, rep)
			t.str(4, col.name)
			t.i32(6, pqInt64Converted)
			t.structField(10)
			t.structField(10) // IntType
			t.i8(1, 64)
			t.boolean(2, true)
			t.end()
			t.end()
		case pqTimestamp:
			t.i32(1, pqInt64)
			t.i32(3, rep)
			t.str(4, col.name)
			t.i32(6, pqTimestampMillis)
			t.structField(10)
			t.structField(8) // TimestampType
			t.boolean(1, true)
			t.structField(2) // TimeUnit
			t.structField(1) // MilliSeconds
			t.end()
			t.end()
			t.end()
			t.end()
		}
		t.end()
	}
	t.i64(3, p.total)
	t.list(4, thriftStruct, len(p.groups))
	for _, g := range p.groups {
		t.begin()
		t.list(1, thriftStruct, len(g.chunks))
		for i, ch := range g.chunks {
			col := parquetSchema[i]
			t.begin()
			t.i64(2, ch.offset)
			t.structField(3) // ColumnMetaData
			if col.kind == pqString {
				t.i32(1, pqByteArray)
			} else {
				t.i32(1, pqInt64)
			}
			if col.optional {
				t.list(2, thriftI32, 2)
				t.i32Value(pqPlain)
				t.i32Value(pqRLE)
			} else {
				t.list(2, thriftI32, 1)
				t.i32Value(pqPlain)
			}
			t.list(3, thriftBinary, 1)
			t.strValue(col.name)
			t.i32(4, pqGzip)
			t.i64(5, ch.values)
			t.i64(6, ch.uncompressed)
			t.i64(7, ch.compressed)
			t.i64(9, ch.offset)
			t.end()
			t.end()
		}
		t.i64(2, g.uncompressed)
		t.i64(3, g.rows)
		t.i64(5, g.offset)
		t.i64(6, g.compressed)
		t.end()
	}
	t.str(6, "agentry")
	t.end()
	n := len(t.buf)
	t.buf = binary.LittleEndian.AppendUint32(t.buf, uint32(n))
	t.buf = append(t.buf, parquetMagic...)
	return p.write(t.buf)
}
