// Package extracttest builds small, valid documents for tests of text
// extraction and of the upload endpoints.
package extracttest

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"strings"
)

// PDF builds a valid PDF with one page per text, in Helvetica, with a
// correct cross-reference table. Texts must not contain ( ) or \.
func PDF(pages ...string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	// 1: catalog, 2: page tree, 3: font, then a page and its contents per text.
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, text := range pages {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		stream := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// DOCX builds a Word document whose paragraphs are the given texts.
func DOCX(paragraphs ...string) []byte {
	var body strings.Builder
	for _, p := range paragraphs {
		body.WriteString(`<w:p><w:r><w:t xml:space="preserve">`)
		xmlEscape(&body, p)
		body.WriteString(`</w:t></w:r></w:p>`)
	}
	return DOCXWithXML(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
		body.String() + `</w:body></w:document>`)
}

// DOCXWithXML builds a Word document around a given word/document.xml.
func DOCXWithXML(documentXML string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range map[string]string{
		"[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"word/document.xml":   documentXML,
	} {
		w, err := zw.Create(name)
		if err != nil {
			panic(err)
		}
		w.Write([]byte(content))
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func xmlEscape(b *strings.Builder, s string) {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	b.WriteString(r.Replace(s))
}

// PDFWithContent builds a one-page PDF whose content stream holds data,
// encoded with filter ("" for none, "FlateDecode" for data from Deflated),
// with the font F1 for its text operators.
func PDFWithContent(data []byte, filter string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [4 0 R] /Count 1 >>")
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>")
	if filter != "" {
		filter = " /Filter /" + filter
	}
	offsets = append(offsets, b.Len())
	fmt.Fprintf(&b, "5 0 obj\n<< /Length %d%s >>\nstream\n", len(data), filter)
	b.Write(data)
	b.WriteString("\nendstream\nendobj\n")
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// RepeatReader reads s repeated n times, without holding it all: the
// body of a decompression bomb.
func RepeatReader(s string, n int) io.Reader {
	return &repeatReader{s: s, left: n * len(s)}
}

type repeatReader struct {
	s    string
	off  int
	left int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && r.left > 0 {
		c := copy(p[n:min(len(p), n+r.left)], r.s[r.off:])
		n += c
		r.left -= c
		r.off = (r.off + c) % len(r.s)
	}
	return n, nil
}

// Deflated compresses what r reads with zlib (the FlateDecode of PDFs).
func Deflated(r io.Reader) []byte {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	io.Copy(zw, r)
	zw.Close()
	return z.Bytes()
}
