package extract

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
)

// contentScanner reads a PDF content stream (PDF 32000-1 §7.8.2): operands
// followed by an operator. The operators that matter here take their
// operands last, so the scanner keeps the last few operands only, and an
// array only as its strings' bytes and the numbers between them (what TJ
// shows): the memory it needs does not grow with the stream, whatever the
// stream holds (millions of operands, arrays nested deep).
type contentScanner struct {
	r   *bufio.Reader
	ops [maxOperands]operand
	n   int    // operands held, at most maxOperands (the last ones)
	tok []byte // the token being read, reused
	// Inside an array: its depth, the bytes of the strings in it, and
	// its items (strings, by where they end in arr, and numbers).
	arrDepth int
	arr      []byte
	items    []arrayItem
	// Inside a dictionary (marked-content properties): its depth. Nothing
	// in it is an operand of a text operator.
	dictDepth int
	// maxString bounds a string, and the strings of an array: one longer
	// could not be written within the text limit anyway.
	maxString int
}

// maxOperands is the most operands an operator read here takes (Tm and
// cm take six).
const maxOperands = 6

// operand is a string (its bytes), a name, an array (the scanner's
// items), a number, or anything else (booleans, dictionaries: only
// counted).
type operand struct {
	kind byte // 's', 'n', 'a', 'f', 'o'
	b    []byte
	num  float64
}

// arrayItem is a string of an array (its bytes end at end in arr) or,
// when end is -1, a number.
type arrayItem struct {
	end int
	num float64
}

func newContentScanner(r io.Reader, maxString int) *contentScanner {
	return &contentScanner{r: bufio.NewReaderSize(r, 32<<10), maxString: maxString}
}

func (s *contentScanner) push(kind byte, b []byte, num float64) error {
	if s.dictDepth > 0 {
		return nil
	}
	if s.arrDepth > 0 {
		switch kind { // a nested array's strings are shown as the outer's
		case 's':
			if len(s.arr)+len(b) > s.maxString || len(s.items) >= s.maxString {
				return s.tooLong()
			}
			s.arr = append(s.arr, b...)
			s.items = append(s.items, arrayItem{end: len(s.arr)})
		case 'f':
			if len(s.items) >= s.maxString {
				return s.tooLong()
			}
			s.items = append(s.items, arrayItem{end: -1, num: num})
		}
		return nil
	}
	if s.n == maxOperands {
		// Drop the oldest; its buffer is reused for the new one (the
		// slots must not share one).
		oldest := s.ops[0].b
		copy(s.ops[:], s.ops[1:])
		s.ops[maxOperands-1] = operand{b: oldest[:0]}
		s.n--
	}
	s.ops[s.n] = operand{kind: kind, b: append(s.ops[s.n].b[:0], b...), num: num}
	s.n++
	return nil
}

func (s *contentScanner) tooLong() error {
	return limitErr("a string in the PDF's page content exceeds %s", mib(int64(s.maxString)))
}

// arg returns the operand i places before the operator (1 is the last).
func (s *contentScanner) arg(i int) operand {
	if i > s.n {
		return operand{}
	}
	return s.ops[s.n-i]
}

// nums returns the last k operands as numbers, if they all are.
func (s *contentScanner) nums(k int) ([maxOperands]float64, bool) {
	var v [maxOperands]float64
	if k > s.n {
		return v, false
	}
	for i := 0; i < k; i++ {
		o := s.ops[s.n-k+i]
		if o.kind != 'f' {
			return v, false
		}
		v[i] = o.num
	}
	return v, true
}

// next reads tokens up to the next operator outside arrays and
// dictionaries and returns it; operands are pushed on the way.
func (s *contentScanner) next() (string, error) {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return "", err
		}
		switch {
		case isContentSpace(c):
		case c == '%':
			if _, err := s.r.ReadSlice('\n'); err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				return "", err
			}
		case c == '(':
			if err := s.literalString(); err != nil {
				return "", err
			}
			if err := s.push('s', s.tok, 0); err != nil {
				return "", err
			}
		case c == '<':
			if next, _ := s.r.Peek(1); len(next) == 1 && next[0] == '<' {
				s.r.ReadByte()
				s.dictDepth++
				continue
			}
			if err := s.hexString(); err != nil {
				return "", err
			}
			if err := s.push('s', s.tok, 0); err != nil {
				return "", err
			}
		case c == '>':
			if next, _ := s.r.Peek(1); len(next) == 1 && next[0] == '>' {
				s.r.ReadByte()
			}
			if s.dictDepth > 0 {
				s.dictDepth--
				if s.dictDepth == 0 {
					_ = s.push('o', nil, 0) // the dictionary is one operand
				}
			}
		case c == '[':
			if s.arrDepth == 0 && s.dictDepth == 0 {
				s.arr, s.items = s.arr[:0], s.items[:0]
			}
			s.arrDepth++
		case c == ']':
			if s.arrDepth > 0 {
				if s.arrDepth--; s.arrDepth == 0 {
					_ = s.push('a', nil, 0) // only strings can fail
				}
			}
		case c == '/':
			if err := s.regular(nil); err != nil {
				return "", err
			}
			_ = s.push('n', decodeName(s.tok), 0) // only strings can fail
		case c == ')' || c == '{' || c == '}':
			// stray delimiters: nothing to show
		default:
			if err := s.regular([]byte{c}); err != nil {
				return "", err
			}
			switch t := s.tok; {
			case isNumberStart(t[0]):
				if err := s.push('f', nil, parseNumber(t)); err != nil {
					return "", err
				}
			case string(t) == "true", string(t) == "false", string(t) == "null":
				_ = s.push('o', nil, 0) // only strings can fail
			case s.arrDepth > 0 || s.dictDepth > 0:
				// an operator inside an array is malformed; skip it
			default:
				return string(t), nil
			}
		}
	}
}

// parseNumber reads a PDF number; a malformed one ("1.2.3", "--4") is 0,
// as is one too large to be finite.
func parseNumber(t []byte) float64 {
	v, err := strconv.ParseFloat(string(t), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		if n := len(t); n > 1 && t[0] == '-' && t[1] == '-' {
			return parseNumber(t[1:])
		}
		return 0
	}
	return v
}

func isContentSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isContentDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func isNumberStart(c byte) bool { return c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.' }

// maxToken bounds a name, number or operator; a longer run of regular
// characters is cut (it is not one of the operators that matter).
const maxToken = 256

// regular reads a run of regular characters into s.tok, after start.
func (s *contentScanner) regular(start []byte) error {
	s.tok = append(s.tok[:0], start...)
	for {
		c, err := s.r.ReadByte()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if isContentSpace(c) || isContentDelim(c) {
			return s.r.UnreadByte()
		}
		if len(s.tok) < maxToken {
			s.tok = append(s.tok, c)
		}
	}
}

// literalString reads a (string) after its opening parenthesis: balanced
// parentheses, backslash escapes, octal codes, and line continuations.
func (s *contentScanner) literalString() error {
	s.tok = s.tok[:0]
	depth := 1
	for {
		c, err := s.r.ReadByte()
		if errors.Is(err, io.EOF) {
			return nil // unterminated: keep what was read
		}
		if err != nil {
			return err
		}
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return nil
			}
		case '\\':
			if c, err = s.r.ReadByte(); errors.Is(err, io.EOF) {
				return nil
			} else if err != nil {
				return err
			}
			switch c {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if next, _ := s.r.Peek(1); len(next) == 1 && next[0] == '\n' {
					s.r.ReadByte()
				}
				continue
			case '\n':
				continue
			default:
				if c >= '0' && c <= '7' {
					v := c - '0'
					for i := 0; i < 2; i++ {
						next, _ := s.r.Peek(1)
						if len(next) == 0 || next[0] < '0' || next[0] > '7' {
							break
						}
						s.r.ReadByte()
						v = v<<3 | (next[0] - '0')
					}
					c = v
				}
			}
		}
		if len(s.tok) >= s.maxString {
			return s.tooLong()
		}
		s.tok = append(s.tok, c)
	}
}

// hexString reads a <hex string> after its opening bracket; white space is
// ignored and an odd last digit is followed by 0.
func (s *contentScanner) hexString() error {
	s.tok = s.tok[:0]
	var hi byte
	half := false
	for {
		c, err := s.r.ReadByte()
		if errors.Is(err, io.EOF) || err == nil && c == '>' {
			if half {
				s.tok = append(s.tok, hi<<4)
			}
			return nil
		}
		if err != nil {
			return err
		}
		v, ok := hexDigit(c)
		if !ok {
			continue
		}
		if half {
			if len(s.tok) >= s.maxString {
				return s.tooLong()
			}
			s.tok = append(s.tok, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodeName resolves #xx escapes in a name.
func decodeName(b []byte) []byte {
	if bytes.IndexByte(b, '#') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '#' && i+2 < len(b) {
			hi, ok1 := hexDigit(b[i+1])
			lo, ok2 := hexDigit(b[i+2])
			if ok1 && ok2 {
				out = append(out, hi<<4|lo)
				i += 2
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}

// skipInlineImage skips an inline image (BI ... ID data EI): its data is
// binary and may hold any byte, so it is not tokenized. The data ends at
// the first EI between white space. The end of the stream ends it too.
func (s *contentScanner) skipInlineImage() error {
	for { // the image's dictionary, up to ID
		op, err := s.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if op == "ID" {
			break
		}
	}
	s.n = 0
	last := [3]byte{' ', ' ', ' '} // the three bytes before c
	for {
		c, err := s.r.ReadByte()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if isContentSpace(last[0]) && last[1] == 'E' && last[2] == 'I' && isContentSpace(c) {
			return nil
		}
		last = [3]byte{last[1], last[2], c}
	}
}
