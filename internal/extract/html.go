package extract

import (
	"context"
	"errors"
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlText keeps what a reader of the page sees: the text, with block
// elements on lines of their own and runs of white space collapsed. Scripts,
// styles and other non-content elements are dropped. The tokenizer streams,
// so the page is never parsed into a tree in memory.
func htmlText(_ context.Context, src Source, w *textWriter, _ Limits) error {
	z := html.NewTokenizer(decodeText(src.R))
	z.SetMaxBuf(8 << 20) // one token (say, a text run) may not exceed 8 MiB
	out := &htmlOut{w: w}
	skip := 0 // depth inside elements whose content is not text
	for {
		switch z.Next() {
		case html.ErrorToken:
			err := z.Err()
			if errors.Is(err, io.EOF) {
				return out.err
			}
			if errors.Is(err, html.ErrBufferExceeded) {
				return malformed("an HTML token is larger than 8 MiB")
			}
			return err
		case html.TextToken:
			if skip == 0 {
				out.text(string(z.Text()))
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if hidden[a] {
				if !voidHidden(a) {
					skip++
				}
				continue
			}
			if skip == 0 && (block[a] || a == atom.Br) {
				out.newline()
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if hidden[a] {
				if skip > 0 {
					skip--
				}
				continue
			}
			switch {
			case skip > 0:
			case block[a]:
				out.newline()
			case a == atom.Td || a == atom.Th:
				out.cell()
			}
		}
		if out.err != nil {
			return out.err
		}
	}
}

// hidden elements carry no visible text.
var hidden = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Iframe: true, atom.Object: true, atom.Canvas: true, atom.Link: true, atom.Meta: true}

// voidHidden are hidden elements without content or end tag.
func voidHidden(a atom.Atom) bool { return a == atom.Link || a == atom.Meta }

// block elements start and end a line.
var block = map[atom.Atom]bool{atom.P: true, atom.Div: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
	atom.H5: true, atom.H6: true, atom.Li: true, atom.Ul: true, atom.Ol: true, atom.Tr: true, atom.Table: true,
	atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true, atom.Blockquote: true, atom.Pre: true,
	atom.Title: true, atom.Hr: true, atom.Dd: true, atom.Dt: true, atom.Nav: true, atom.Aside: true, atom.Main: true,
	atom.Figcaption: true, atom.Caption: true, atom.Address: true, atom.Form: true}

// htmlOut collapses white space: runs of spaces become one, and at most
// one blank line separates blocks.
type htmlOut struct {
	w        *textWriter
	err      error
	started  bool // some text was written
	lineOpen bool // text written on the current line
	space    bool // a space is owed before the next word
	newlines int  // newlines written since the last text
}

func (o *htmlOut) text(s string) {
	words := strings.Fields(s)
	if len(words) == 0 {
		if s != "" {
			o.space = true
		}
		return
	}
	if isSpace(s[0]) {
		o.space = true
	}
	for i, word := range words {
		if o.lineOpen && (i > 0 || o.space) {
			o.write(" ")
		}
		o.write(word)
		o.started, o.lineOpen, o.space, o.newlines = true, true, false, 0
	}
	o.space = isSpace(s[len(s)-1])
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' }

// cell separates table cells on a line.
func (o *htmlOut) cell() { o.space = true }

func (o *htmlOut) newline() {
	if !o.started || o.newlines >= 2 {
		return
	}
	o.write("\n")
	o.newlines++
	o.lineOpen, o.space = false, false
}

func (o *htmlOut) write(s string) {
	if o.err == nil {
		_, o.err = o.w.WriteString(s)
	}
}
