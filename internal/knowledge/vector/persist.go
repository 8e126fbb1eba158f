package vector

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
)

// A snapshot is the whole graph, so that a process restarting loads its
// index in the time it takes to read the file instead of rebuilding it
// (a rebuild of 100,000 vectors is minutes of CPU). Layout, little-endian:
//
//	magic "AGRYHNSW", version uint32
//	dims, m, m0, efConstruction, nodes uint32; entry int32; top uint32
//	per node: id length (uvarint), id, level byte, deleted byte
//	vectors: nodes × dims float32
//	layer-0 links: nodes × (m0+linkSlack+1) int32
//	upper links: per node of level > 0, level × (m+linkSlack+1) int32
//	CRC-32 (IEEE) of everything before it
//
// Readers check every count and link, so a damaged file is an error,
// never a panic or a wrong graph.

const (
	snapshotMagic   = "AGRYHNSW"
	snapshotVersion = 1
	maxIDLen        = 1 << 16
	maxSnapshotM    = 1024
)

// ErrSnapshot is returned by Read for a file that is not a valid snapshot.
var ErrSnapshot = errors.New("vector: not a valid index snapshot")

// WriteTo writes a snapshot of the index. Searches may run meanwhile;
// writes wait until it is done.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	crc := crc32.NewIEEE()
	cw := &countWriter{w: io.MultiWriter(w, crc)}
	bw := bufio.NewWriterSize(cw, 1<<16)
	n := len(ix.ids)
	bw.WriteString(snapshotMagic)
	hdr := []uint32{snapshotVersion, uint32(ix.dims), uint32(ix.m), uint32(ix.m0), uint32(ix.efConstruction), uint32(n),
		uint32(ix.entry), uint32(ix.top)}
	binary.Write(bw, binary.LittleEndian, hdr)
	var tmp [binary.MaxVarintLen64]byte
	for i, id := range ix.ids {
		bw.Write(tmp[:binary.PutUvarint(tmp[:], uint64(len(id)))])
		bw.WriteString(id)
		del := byte(0)
		if ix.deleted[i] {
			del = 1
		}
		bw.Write([]byte{ix.levels[i], del})
	}
	for b := 0; b*blockSize < n; b++ {
		used := min(n-b*blockSize, blockSize)
		binary.Write(bw, binary.LittleEndian, ix.vecs[b][:used*ix.dims])
	}
	w0 := ix.m0 + linkSlack + 1
	for b := 0; b*blockSize < n; b++ {
		used := min(n-b*blockSize, blockSize)
		binary.Write(bw, binary.LittleEndian, ix.links0[b][:used*w0])
	}
	for i := range ix.ids {
		if ix.levels[i] > 0 {
			binary.Write(bw, binary.LittleEndian, ix.upper[i])
		}
	}
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc.Sum32())
	_, err := w.Write(sum[:])
	return cw.n + 4, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Read loads a snapshot written by WriteTo.
func Read(r io.Reader) (*Index, error) {
	crc := crc32.NewIEEE()
	br := &snapReader{r: bufio.NewReaderSize(r, 1<<16), crc: crc}
	magic := make([]byte, len(snapshotMagic))
	br.full(magic)
	if br.err == nil && string(magic) != snapshotMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrSnapshot)
	}
	hdr := make([]uint32, 8)
	br.u32s(hdr)
	if br.err != nil {
		return nil, br.fail()
	}
	version, dims, m, m0, efc, n := hdr[0], int(hdr[1]), int(hdr[2]), int(hdr[3]), int(hdr[4]), int(hdr[5])
	entry, top := int32(hdr[6]), int(hdr[7])
	switch {
	case version != snapshotVersion:
		return nil, fmt.Errorf("%w: version %d", ErrSnapshot, version)
	case dims < 1 || dims > MaxDims, m < 2 || m > maxSnapshotM, m0 < m || m0 > 2*maxSnapshotM, efc < 1,
		n < 0 || n > 1<<30, entry < -1 || int(entry) >= n, top > maxLevel, (n == 0) != (entry < 0):
		return nil, fmt.Errorf("%w: bad header", ErrSnapshot)
	}
	ix := New(dims)
	ix.m, ix.m0, ix.efConstruction = m, m0, efc
	ix.levelMult = 1 / math.Log(float64(m))
	for i := 0; i < n && br.err == nil; i++ {
		l := br.uvarint()
		if l > maxIDLen {
			return nil, fmt.Errorf("%w: id too long", ErrSnapshot)
		}
		id := make([]byte, l)
		br.full(id)
		var ld [2]byte
		br.full(ld[:])
		if br.err != nil {
			break
		}
		if int(ld[0]) > maxLevel || ld[1] > 1 {
			return nil, fmt.Errorf("%w: bad node", ErrSnapshot)
		}
		ix.ids = append(ix.ids, string(id))
		ix.levels = append(ix.levels, ld[0])
		ix.deleted = append(ix.deleted, ld[1] == 1)
	}
	if br.err != nil {
		return nil, br.fail()
	}
	w0 := m0 + linkSlack + 1
	for b := 0; b*blockSize < n && br.err == nil; b++ {
		used := min(n-b*blockSize, blockSize)
		blk := make([]float32, blockSize*dims)
		br.f32s(blk[:used*dims])
		ix.vecs = append(ix.vecs, blk)
	}
	for b := 0; b*blockSize < n && br.err == nil; b++ {
		used := min(n-b*blockSize, blockSize)
		blk := make([]int32, blockSize*w0)
		br.i32s(blk[:used*w0])
		ix.links0 = append(ix.links0, blk)
	}
	// Grown as read (not sized from the header), so a damaged count
	// cannot make a huge allocation.
	wu := m + linkSlack + 1
	for i := 0; i < n && br.err == nil; i++ {
		var up []int32
		if l := int(ix.levels[i]); l > 0 {
			up = make([]int32, l*wu)
			br.i32s(up)
		}
		ix.upper = append(ix.upper, up)
	}
	if br.err != nil {
		return nil, br.fail()
	}
	want := crc.Sum32()
	var sum [4]byte
	if _, err := io.ReadFull(br.r, sum[:]); err != nil {
		return nil, fmt.Errorf("%w: truncated", ErrSnapshot)
	}
	if binary.LittleEndian.Uint32(sum[:]) != want {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrSnapshot)
	}
	// Check the graph: every link in range and within its list's capacity,
	// the entry at the top level, ids unique.
	check := func(ls []int32, limit int) bool {
		c := int(ls[0])
		if c < 0 || c > limit+linkSlack {
			return false
		}
		for _, x := range ls[1 : 1+c] {
			if x < 0 || int(x) >= n {
				return false
			}
		}
		return true
	}
	for i := range n {
		if !check(ix.links(int32(i), 0), m0) {
			return nil, fmt.Errorf("%w: bad links", ErrSnapshot)
		}
		for l := 1; l <= int(ix.levels[i]); l++ {
			if !check(ix.links(int32(i), l), m) {
				return nil, fmt.Errorf("%w: bad links", ErrSnapshot)
			}
		}
		if ix.deleted[i] {
			ix.nDead++
			continue
		}
		if _, dup := ix.byID[ix.ids[i]]; dup {
			return nil, fmt.Errorf("%w: duplicate id", ErrSnapshot)
		}
		ix.byID[ix.ids[i]] = int32(i)
	}
	if entry >= 0 && int(ix.levels[entry]) != top {
		return nil, fmt.Errorf("%w: bad entry point", ErrSnapshot)
	}
	// An upper-layer link to a node without that layer would index past
	// its slots: check levels too.
	for i := range n {
		for l := 1; l <= int(ix.levels[i]); l++ {
			ls := ix.links(int32(i), l)
			for _, x := range ls[1 : 1+ls[0]] {
				if int(ix.levels[x]) < l {
					return nil, fmt.Errorf("%w: bad links", ErrSnapshot)
				}
			}
		}
	}
	ix.entry, ix.top = entry, top
	// Levels of later inserts continue from a fresh but fixed seed.
	ix.rng = rand.New(rand.NewPCG(0x5eed+uint64(n), 0x1d))
	return ix, nil
}

type snapReader struct {
	r   *bufio.Reader
	crc hash.Hash32
	err error
	buf []byte
}

func (s *snapReader) fail() error {
	if errors.Is(s.err, io.EOF) || errors.Is(s.err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: truncated", ErrSnapshot)
	}
	return s.err
}

// full reads p and adds it to the checksum (reads go through here and
// ReadByte only, so the checksum covers exactly what was consumed).
func (s *snapReader) full(p []byte) {
	if s.err == nil {
		_, s.err = io.ReadFull(s.r, p)
		s.crc.Write(p)
	}
}

func (s *snapReader) ReadByte() (byte, error) {
	b, err := s.r.ReadByte()
	if err == nil {
		s.crc.Write([]byte{b})
	}
	return b, err
}

func (s *snapReader) uvarint() uint64 {
	if s.err != nil {
		return 0
	}
	v, err := binary.ReadUvarint(s)
	s.err = err
	return v
}

func (s *snapReader) raw(n int) []byte {
	if cap(s.buf) < n {
		s.buf = make([]byte, n)
	}
	b := s.buf[:n]
	s.full(b)
	return b
}

func (s *snapReader) u32s(dst []uint32) {
	b := s.raw(4 * len(dst))
	if s.err == nil {
		for i := range dst {
			dst[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
	}
}

func (s *snapReader) i32s(dst []int32) {
	for len(dst) > 0 && s.err == nil {
		n := min(len(dst), 1<<14)
		b := s.raw(4 * n)
		if s.err != nil {
			return
		}
		for i := range n {
			dst[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
		}
		dst = dst[n:]
	}
}

func (s *snapReader) f32s(dst []float32) {
	for len(dst) > 0 && s.err == nil {
		n := min(len(dst), 1<<14)
		b := s.raw(4 * n)
		if s.err != nil {
			return
		}
		for i := range n {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		dst = dst[n:]
	}
}
