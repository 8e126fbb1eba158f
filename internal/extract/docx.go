package extract

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"errors"
	"io"
)

// maxDocumentXML bounds the decompressed size of a DOCX's main part, so a
// small zip cannot inflate into gigabytes (a zip bomb).
const maxDocumentXML = 256 << 20

// docxText writes the paragraphs of word/document.xml, one per line, with
// tabs and line breaks kept. The XML is decoded as a token stream.
func docxText(ctx context.Context, src Source, w *textWriter) error {
	zr, err := zip.NewReader(src.RA, src.Size)
	if err != nil {
		return malformed("not a DOCX file (not a zip archive): %v", err)
	}
	var doc *zip.File
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			doc = f
			break
		}
	}
	if doc == nil {
		return malformed("not a DOCX file: word/document.xml is missing")
	}
	rc, err := doc.Open()
	if err != nil {
		return malformed("word/document.xml: %v", err)
	}
	defer rc.Close()
	lr := &io.LimitedReader{R: rc, N: maxDocumentXML + 1}
	dec := xml.NewDecoder(lr)
	inText := false
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if lr.N <= 0 {
				return malformed("word/document.xml is larger than %d MiB uncompressed", maxDocumentXML>>20)
			}
			return malformed("word/document.xml: %v", err)
		}
		var out string
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "t": // w:delText, text deleted in tracked changes, is left out
				inText = true
			case "tab":
				out = "\t"
			case "br", "cr":
				out = "\n"
			case "p":
				if w.chars > 0 {
					out = "\n"
				}
			}
		case xml.EndElement:
			if t.Name.Local == "t" {
				inText = false
			}
		case xml.CharData:
			if inText {
				out = string(t)
			}
		}
		if out != "" {
			if _, err := w.WriteString(out); err != nil {
				return err
			}
		}
	}
}
