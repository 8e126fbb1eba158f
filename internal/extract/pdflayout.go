package extract

import (
	"math"
	"sort"
	"unicode"
	"unicode/utf8"
)

// A PDF page says where each glyph goes, not where words and lines end:
// many producers (TeX, groff, browsers) never show a space character and
// move to the next word instead. pageLayout collects the glyphs a page
// shows as words, with their places, and writes them in reading order:
// words split where the gap to the next glyph is wider than a word space
// could be narrow, lines by their baselines, and blocks (columns,
// paragraphs, table cells) by the white space around them.
type pageLayout struct {
	text  []byte // the words' text, one after another
	words []pdfWord
	open  bool // the last word may still grow
	out   *pageWriter
	// maxText bounds the text held: past it, what is held is written
	// (where the text limit stops it).
	maxText int
}

// pdfWord is a word as shown, in the frame of its direction: x runs along
// the line, y is the baseline, growing up the page.
type pdfWord struct {
	start, end int // in pageLayout.text
	x0, x1, y  float64
	size       float64
	rot        uint8 // 0: left to right; 1, 2, 3: turned 90°, 180°, 270°
	spaceAfter bool  // a space character followed it
}

// Fractions of the text size.
const (
	// wordGap: a gap wider than this between glyphs separates words. Kerns
	// and letter spacing stay under it; word spaces, even squeezed by
	// justification, are over it (a third of the size, rarely under a
	// fifth).
	wordGap = 0.13
	// baselineShift: glyphs whose baselines differ by more are not one
	// word (sub- and superscripts still join their line).
	baselineShift = 0.3
	// columnGap, rowGap: white space that separates blocks, across and
	// down the page, against the median text size of the region.
	columnGap = 1.5
	rowGap    = 0.5
)

// maxPageWords bounds the words held for one page: a page with more is
// laid out in parts, so a hostile page cannot make the layout's memory or
// time grow without bound. Real pages hold a few thousand.
const maxPageWords = 50_000

// add records a glyph: its text, where its origin and its advance put it
// (in device space), its size, and the direction of its baseline.
func (p *pageLayout) add(text string, x0, y0, x1, y1, size, dx, dy float64) {
	if p.out.err != nil {
		return
	}
	rot, fx0, fy := frame(x0, y0, dx, dy)
	_, fx1, _ := frame(x1, y1, dx, dy)
	if fx1 < fx0 {
		fx1 = fx0
	}
	if isSpaceText(text) {
		if p.open {
			p.words[len(p.words)-1].spaceAfter = true
		}
		p.open = false
		return
	}
	if len(p.text)+len(text) > p.maxText {
		p.flush()
		if p.out.err != nil {
			return
		}
	}
	if p.open {
		w := &p.words[len(p.words)-1]
		gap := fx0 - w.x1
		tol := math.Max(w.size, size)
		if w.rot == rot && math.Abs(fy-w.y) < baselineShift*tol && gap < wordGap*tol && gap > -0.5*tol {
			p.text = append(p.text, text...)
			w.end = len(p.text)
			w.x1 = math.Max(w.x1, fx1)
			return
		}
	}
	if len(p.words) >= maxPageWords {
		p.flush()
	}
	start := len(p.text)
	p.text = append(p.text, text...)
	p.words = append(p.words, pdfWord{start: start, end: len(p.text), x0: fx0, x1: fx1, y: fy, size: size, rot: rot})
	p.open = true
}

func isSpaceText(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// frame turns a point into the frame of its baseline's direction, the
// nearest of the four right angles.
func frame(x, y, dx, dy float64) (rot uint8, fx, fy float64) {
	switch {
	case math.Abs(dx) >= math.Abs(dy) && dx >= 0:
		return 0, x, y
	case math.Abs(dy) > math.Abs(dx) && dy > 0:
		return 1, y, -x
	case math.Abs(dx) >= math.Abs(dy):
		return 2, -x, -y
	default:
		return 3, -y, x
	}
}

// flush writes the words held in reading order and forgets them.
func (p *pageLayout) flush() {
	defer func() { p.text, p.words, p.open = p.text[:0], p.words[:0], false }()
	for rot := uint8(0); rot < 4; rot++ {
		var ids []int
		for i := range p.words {
			if p.words[i].rot == rot && p.words[i].end > p.words[i].start {
				ids = append(ids, i)
			}
		}
		if len(ids) > 0 {
			p.block(ids, 0)
			p.out.text("\n\n")
		}
	}
}

// maxCutDepth bounds the recursion of block finding; past it, what is
// left is read as one block.
const maxCutDepth = 16

// block writes a region of the page: split into columns or rows where
// white space runs across it, or read as lines. Columns come first when
// each is a column of text, reaching most of the way down the region;
// otherwise rows (so a list's short terms are not read apart from what
// they define).
func (p *pageLayout) block(ids []int, depth int) {
	if len(ids) > 1 && depth < maxCutDepth && !p.oneLine(ids) {
		med := p.medianSize(ids)
		cols := p.split(ids, med*columnGap, true)
		if len(cols) > 1 && p.columnsOfText(cols) {
			p.blocks(cols, depth, "\n")
			return
		}
		if rows := p.split(ids, med*rowGap, false); len(rows) > 1 {
			p.blocks(rows, depth, "\n\n")
			return
		}
		if len(cols) > 1 {
			p.blocks(cols, depth, "\n")
			return
		}
	}
	p.lines(ids)
}

// oneLine reports whether the words share one line: then they are read
// as one, however wide the gaps between them (a table's row, a running
// header), rather than as columns.
func (p *pageLayout) oneLine(ids []int) bool {
	lo, hi := math.Inf(-1), math.Inf(1) // the band all words cross
	minHeight := math.Inf(1)
	for _, id := range ids {
		b, t := p.words[id].box()
		lo, hi, minHeight = math.Max(lo, b), math.Min(hi, t), math.Min(minHeight, t-b)
	}
	return hi-lo >= 0.5*minHeight
}

func (p *pageLayout) blocks(parts [][]int, depth int, sep string) {
	for i, part := range parts {
		if i > 0 {
			p.out.text(sep)
		}
		p.block(part, depth+1)
	}
}

func (p *pageLayout) medianSize(ids []int) float64 {
	sizes := make([]float64, len(ids))
	for i, id := range ids {
		sizes[i] = p.words[id].size
	}
	sort.Float64s(sizes)
	return math.Max(sizes[len(sizes)/2], 0.1)
}

// box returns a word's extent across the line: from below the baseline
// (descenders) to the top of capitals.
func (w *pdfWord) box() (bottom, top float64) { return w.y - 0.25*w.size, w.y + 0.75*w.size }

// split cuts the words into groups where a gap of at least minGap runs
// across them: vertical gaps (columns, left to right) or horizontal ones
// (rows, top to bottom). Nil when there is none.
func (p *pageLayout) split(ids []int, minGap float64, vertical bool) [][]int {
	type span struct {
		lo, hi float64
		id     int
	}
	spans := make([]span, len(ids))
	for i, id := range ids {
		w := &p.words[id]
		if vertical {
			spans[i] = span{w.x0, w.x1, id}
		} else {
			b, t := w.box()
			spans[i] = span{-t, -b, id} // top down
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	var groups [][]int
	var cur []int
	reach := spans[0].hi
	for _, s := range spans {
		if len(cur) > 0 && s.lo-reach >= minGap {
			groups = append(groups, cur)
			cur = nil
		}
		cur = append(cur, s.id)
		reach = math.Max(reach, s.hi)
	}
	if len(groups) == 0 {
		return nil
	}
	return append(groups, cur)
}

// columnsOfText reports whether every column reaches down at least half
// the height of the region they share.
func (p *pageLayout) columnsOfText(cols [][]int) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	cover := make([]float64, len(cols))
	for i, col := range cols {
		type span struct{ b, t float64 }
		spans := make([]span, len(col))
		for j, id := range col {
			b, t := p.words[id].box()
			spans[j] = span{b, t}
			lo, hi = math.Min(lo, b), math.Max(hi, t)
		}
		sort.Slice(spans, func(a, b int) bool { return spans[a].b < spans[b].b })
		// The union of the words' heights, with gaps of a line or less
		// counted in: a paragraph covers its whole height.
		from, to := spans[0].b, spans[0].t
		for _, s := range spans[1:] {
			if s.b > to+p.words[col[0]].size {
				cover[i] += to - from
				from = s.b
			}
			to = math.Max(to, s.t)
		}
		cover[i] += to - from
	}
	for _, c := range cover {
		if c < 0.5*(hi-lo) {
			return false
		}
	}
	return true
}

// lines writes a block: its words grouped into lines by baseline, top
// down, each line left to right; a word hyphenated at the end of a line
// is joined again.
func (p *pageLayout) lines(ids []int) {
	sort.SliceStable(ids, func(i, j int) bool {
		_, ti := p.words[ids[i]].box()
		_, tj := p.words[ids[j]].box()
		return ti > tj
	})
	type line struct {
		ids    []int
		b, t   float64
		y      float64
		weight float64
	}
	var lines []*line
	var cur *line
	for _, id := range ids {
		w := &p.words[id]
		b, t := w.box()
		if cur != nil {
			overlap := math.Min(t, cur.t) - math.Max(b, cur.b)
			if overlap >= 0.5*math.Min(t-b, cur.t-cur.b) {
				cur.ids = append(cur.ids, id)
				if w.size > cur.weight { // the line is where its largest text is
					cur.b, cur.t, cur.y, cur.weight = b, t, w.y, w.size
				}
				continue
			}
		}
		cur = &line{ids: []int{id}, b: b, t: t, y: w.y, weight: w.size}
		lines = append(lines, cur)
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].y > lines[j].y })
	for _, l := range lines {
		sort.SliceStable(l.ids, func(a, b int) bool { return p.words[l.ids[a]].x0 < p.words[l.ids[b]].x0 })
	}
	startsWithLetter := func(l *line) bool {
		w := &p.words[l.ids[0]]
		r, _ := utf8.DecodeRune(p.text[w.start:w.end])
		return unicode.IsLetter(r)
	}
	var pending []byte // the line being written, held to join a hyphenated word
	for i, l := range lines {
		var prev *pdfWord
		for _, id := range l.ids {
			w := &p.words[id]
			text := p.text[w.start:w.end]
			if prev != nil {
				tol := math.Max(prev.size, w.size)
				gap := w.x0 - prev.x1
				if string(text) == string(p.text[prev.start:prev.end]) && math.Abs(w.x0-prev.x0) < 0.2*tol {
					continue // the same word drawn twice, a little apart, to look bold
				}
				if prev.spaceAfter || gap > wordGap*tol || gap < -0.5*tol {
					pending = append(pending, ' ')
				}
			}
			pending = append(pending, text...)
			prev = w
		}
		if n := hyphenated(pending); n > 0 && i+1 < len(lines) && startsWithLetter(lines[i+1]) {
			pending = pending[:len(pending)-n]
			continue
		}
		p.out.text(string(pending))
		if i+1 < len(lines) {
			p.out.text("\n")
		}
		pending = pending[:0]
	}
}

// hyphenated reports whether a line ends in a hyphen (-, U+2010, or a
// soft hyphen) after a letter, and how many bytes the hyphen takes.
func hyphenated(line []byte) int {
	h, n := utf8.DecodeLastRune(line)
	if h != '-' && h != '\u2010' && h != '\u00ad' {
		return 0
	}
	r, _ := utf8.DecodeLastRune(line[:len(line)-n])
	if !unicode.IsLetter(r) {
		return 0
	}
	return n
}
