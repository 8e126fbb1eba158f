package extract

import (
	"bufio"
	"compress/zlib"
	"errors"
	"io"
	"strconv"
	"strings"
)

// maxPDFObjects bounds the object numbers a PDF may use. The PDF library
// sizes its cross-reference table by the largest number it reads, before
// it finds whether the objects exist: a few bytes declaring object
// 200,000,000 cost it 6 GB. Real documents use far fewer numbers (a
// thousand-page report, some hundred thousand).
const maxPDFObjects = 2_000_000

// checkPDFStructure reads the whole file once, as the library's lexer
// would, before the library reads it. It refuses a file whose
// cross-reference data (a /Size, an /Index range, a table subsection)
// reaches past maxPDFObjects, and one whose object and cross-reference
// streams, which the library decompresses on its own, inflate past
// maxDecompressed in all. It looks at every place such data could be, not
// only those the library will read, which errs on the side of refusing.
func checkPDFStructure(r io.Reader, maxDecompressed int64) error {
	sc := &pdfTokens{r: bufio.NewReaderSize(r, 64<<10)}
	tooMany := func(n int64) error {
		return limitErr("the PDF declares %d objects (at most %d are read)", n, maxPDFObjects)
	}
	budget := &decompressBudget{left: maxDecompressed, max: maxDecompressed, what: "PDF's object stream data"}
	var typ, filter string // of the object being read
	for {
		tok, kind, err := sc.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case kind == 'k' && tok == "obj":
			typ, filter = "", ""
		case kind == '/' && tok == "Type":
			if t, k, _ := sc.next(); k == '/' {
				typ = t
			}
		case kind == '/' && tok == "Filter":
			filter = sc.filter()
		case kind == 'k' && tok == "stream" && (typ == "ObjStm" || typ == "XRef"):
			if err := sc.measureStream(filter, budget); err != nil {
				return err
			}
			typ, filter = "", ""
		case kind == '/' && tok == "Size":
			if n, ok := sc.int(); ok && (n < 0 || n > maxPDFObjects) {
				return tooMany(n)
			}
		case kind == '/' && tok == "Index":
			if t, _, _ := sc.next(); t != "[" {
				continue
			}
			for {
				start, ok1 := sc.int()
				n, ok2 := sc.int()
				if !ok1 || !ok2 {
					break
				}
				if start < 0 || n < 0 || start+n > maxPDFObjects {
					return tooMany(start + n)
				}
			}
		case kind == 'k' && tok == "xref":
			// Subsections: "start count", then count entries of three
			// tokens; the library stops at the first entry that is not one.
			for {
				start, ok1 := sc.int()
				n, ok2 := sc.int()
				if !ok1 || !ok2 {
					break
				}
				if start < 0 || n < 0 || start+n > maxPDFObjects {
					return tooMany(start + n)
				}
				entries := int64(0)
				for ; entries < n; entries++ {
					_, ok1 := sc.int()
					_, ok2 := sc.int()
					t, k, _ := sc.next()
					if !ok1 || !ok2 || k != 'k' || t != "f" && t != "n" {
						break
					}
				}
				if entries < n {
					break
				}
			}
		}
	}
}

// filter reads the value of /Filter: a name, or the names of an array
// joined by spaces.
func (s *pdfTokens) filter() string {
	t, k, _ := s.next()
	if k == '/' {
		return t
	}
	if t != "[" {
		return ""
	}
	var names []string
	for len(names) < 8 {
		t, k, err := s.next()
		if err != nil || k != '/' {
			break
		}
		names = append(names, t)
	}
	return strings.Join(names, " ")
}

// measureStream inflates the stream data that follows the stream keyword,
// charging it to the budget. Only unfiltered and FlateDecode streams are
// measured; an object stream with any other filter is refused, since the
// library would inflate it unmeasured.
func (s *pdfTokens) measureStream(filter string, budget *decompressBudget) error {
	if c, err := s.r.ReadByte(); err == nil && c == '\r' {
		if next, _ := s.r.Peek(1); len(next) == 1 && next[0] == '\n' {
			s.r.ReadByte()
		}
	}
	switch filter {
	case "":
		return nil // stored as it is: no larger than the file
	case "FlateDecode":
	default:
		return malformed("the PDF's object streams use filters that are not read here")
	}
	// The inflater reads the bufio.Reader byte by byte, so it stops at
	// the end of the compressed data and the scan goes on from there.
	zr, err := zlib.NewReader(s.r)
	if err != nil {
		return nil // not zlib data: the library will find it malformed
	}
	_, err = io.Copy(io.Discard, &countingReader{r: zr, b: budget})
	if errors.Is(err, ErrLimit) {
		return err
	}
	return nil
}

// pdfTokens splits a PDF into the tokens that matter here: names ('/'),
// numbers and keywords ('k'), and single delimiters ('d'). Strings are
// skipped as delimiters and their contents read as tokens, which is
// harmless: it can only find more numbers, not fewer.
type pdfTokens struct {
	r       *bufio.Reader
	tok     []byte
	pending bool // a token was pushed back
	last    string
	lastK   byte
}

func (s *pdfTokens) next() (string, byte, error) {
	if s.pending {
		s.pending = false
		return s.last, s.lastK, nil
	}
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return "", 0, err
		}
		switch {
		case isContentSpace(c):
		case c == '%':
			for c != '\n' && c != '\r' {
				if c, err = s.r.ReadByte(); err != nil {
					return "", 0, err
				}
			}
		case c == '/':
			s.tok = s.tok[:0]
			for {
				c, err := s.r.ReadByte()
				if err != nil || isContentSpace(c) || isContentDelim(c) {
					if err == nil {
						s.r.UnreadByte()
					}
					break
				}
				if c == '#' {
					h, _ := s.r.ReadByte()
					l, _ := s.r.ReadByte()
					hi, ok1 := hexDigit(h)
					lo, ok2 := hexDigit(l)
					if ok1 && ok2 {
						c = hi<<4 | lo
					}
				}
				if len(s.tok) < maxToken {
					s.tok = append(s.tok, c)
				}
			}
			return s.remember(intern(s.tok), '/')
		case isContentDelim(c):
			return s.remember(string(c), 'd')
		default:
			s.tok = append(s.tok[:0], c)
			for {
				c, err := s.r.ReadByte()
				if err != nil || isContentSpace(c) || isContentDelim(c) {
					if err == nil {
						s.r.UnreadByte()
					}
					break
				}
				if len(s.tok) < maxToken {
					s.tok = append(s.tok, c)
				}
			}
			return s.remember(intern(s.tok), 'k')
		}
	}
}

// intern returns the names and keywords the check looks for, and numbers,
// as strings; any other token is "?", so that reading megabytes of binary
// stream data does not allocate a string per token.
func intern(b []byte) string {
	switch string(b) {
	case "Size", "Index", "xref", "obj", "stream", "f", "n", "Type", "Filter", "ObjStm", "XRef", "FlateDecode":
		return string(b)
	}
	if len(b) > 0 && isDigits(string(b)) {
		return string(b)
	}
	return "?"
}

func (s *pdfTokens) remember(tok string, kind byte) (string, byte, error) {
	s.last, s.lastK = tok, kind
	return tok, kind, nil
}

// int reads an integer token; anything else is pushed back.
func (s *pdfTokens) int() (int64, bool) {
	tok, kind, err := s.next()
	if err != nil {
		return 0, false
	}
	if kind == 'k' {
		if n, err := strconv.ParseInt(tok, 10, 64); err == nil {
			return n, true
		}
		if len(tok) > 0 && tok[0] >= '0' && tok[0] <= '9' && isDigits(tok) {
			return 1 << 62, true // too large for int64: too many, certainly
		}
	}
	s.pending = true
	return 0, false
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
