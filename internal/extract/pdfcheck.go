package extract

import (
	"bufio"
	"errors"
	"io"
	"strconv"
)

// maxPDFObjects bounds the object numbers a PDF may use. The PDF library
// sizes its cross-reference table by the largest number it reads, before
// it finds whether the objects exist: a few bytes declaring object
// 200,000,000 cost it 6 GB. Real documents use far fewer numbers (a
// thousand-page report, some hundred thousand).
const maxPDFObjects = 2_000_000

// checkPDFObjectNumbers reads the whole file once, as the library's lexer
// would, and refuses a file whose cross-reference data (a /Size, an /Index
// range, a table subsection) reaches past maxPDFObjects. It looks at every
// place such data could be, not only those the library will read, which
// errs on the side of refusing.
func checkPDFObjectNumbers(r io.Reader) error {
	sc := &pdfTokens{r: bufio.NewReaderSize(r, 64<<10)}
	tooMany := func(n int64) error {
		return limitErr("the PDF declares %d objects (at most %d are read)", n, maxPDFObjects)
	}
	for {
		tok, kind, err := sc.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch {
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
			return s.remember(string(s.tok), '/')
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
			return s.remember(string(s.tok), 'k')
		}
	}
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
