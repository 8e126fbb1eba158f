package extract

import (
	"errors"
	"fmt"
	"io"
)

// Limits bound what one file may cost to extract. A small file can expand
// enormously (a compressed PDF stream, a zip entry, a deeply nested JSON
// array), so the size of the upload alone bounds nothing: these do. The
// zero value of a field means its default.
type Limits struct {
	// MaxDecompressedBytes bounds the bytes decompressed from one file:
	// the PDF page content streams and character maps read (and, as a
	// second budget, its object streams), or the DOCX document part.
	// DefaultMaxDecompressedBytes when zero.
	MaxDecompressedBytes int64
	// MaxTextBytes bounds the extracted text of one file (UTF-8 bytes).
	// DefaultMaxTextBytes when zero.
	MaxTextBytes int64
	// MaxDepth bounds the nesting of JSON values and of DOCX XML elements.
	// DefaultMaxDepth when zero.
	MaxDepth int
	// MaxArchiveEntries bounds the entries of a DOCX (zip) archive.
	// DefaultMaxArchiveEntries when zero.
	MaxArchiveEntries int
}

// Defaults of Limits.
const (
	DefaultMaxDecompressedBytes = 128 << 20
	DefaultMaxTextBytes         = 20 << 20
	DefaultMaxDepth             = 1000
	DefaultMaxArchiveEntries    = 10_000
	// maxCMapBytes bounds one font's character map: the PDF library
	// interprets it in memory, and real ones are well under 1 MiB.
	maxCMapBytes = 4 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxDecompressedBytes <= 0 {
		l.MaxDecompressedBytes = DefaultMaxDecompressedBytes
	}
	if l.MaxTextBytes <= 0 {
		l.MaxTextBytes = DefaultMaxTextBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxArchiveEntries <= 0 {
		l.MaxArchiveEntries = DefaultMaxArchiveEntries
	}
	return l
}

// ErrLimit is wrapped by the error of a file that passes one of its
// Limits; the message says which ("extraction stopped: ...").
var ErrLimit = errors.New("extraction stopped")

func limitErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrLimit, fmt.Sprintf(format, args...))
}

// mib writes a byte count in MiB for messages.
func mib(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// decompressBudget counts the bytes decompressed from one file.
type decompressBudget struct {
	left, max int64
	what      string // what is decompressed, for the message
}

func (b *decompressBudget) exceeded() error {
	return limitErr("the %s exceeds %s decompressed", b.what, mib(b.max))
}

// countingReader reads from r, charging what it reads to the budget, and
// fails once the budget is spent: the decompressed bytes pass through in
// small reads, so no more than the budget is ever produced.
type countingReader struct {
	r io.Reader
	b *decompressBudget
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.b.left < 0 {
		return 0, c.b.exceeded()
	}
	if int64(len(p)) > c.b.left+1 {
		p = p[:c.b.left+1]
	}
	n, err := c.r.Read(p)
	c.b.left -= int64(n)
	if c.b.left < 0 {
		return 0, c.b.exceeded()
	}
	return n, err
}
