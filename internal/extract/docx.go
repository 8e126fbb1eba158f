package extract

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"errors"
	"io"
)

// docxText writes the paragraphs of word/document.xml, one per line, with
// tabs and line breaks kept. The XML is decoded as a token stream. A zip
// can be a bomb two ways: an entry that inflates into gigabytes (the part
// is read through a limit, whatever its header claims) and millions of
// tiny entries (counted before the archive is opened, since opening it
// builds a record per entry).
func docxText(ctx context.Context, src Source, w *textWriter, l Limits) error {
	if err := checkZipEntries(src.RA, src.Size, l.MaxArchiveEntries); err != nil {
		return err
	}
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
	budget := &decompressBudget{left: l.MaxDecompressedBytes, max: l.MaxDecompressedBytes, what: "DOCX's word/document.xml"}
	dec := xml.NewDecoder(&countingReader{r: rc, b: budget})
	inText := false
	depth := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if errors.Is(err, ErrLimit) {
				return err
			}
			return malformed("word/document.xml: %v", err)
		}
		var out string
		switch t := tok.(type) {
		case xml.StartElement:
			// The decoder keeps a record per open element.
			if depth++; depth > l.MaxDepth {
				return limitErr("the DOCX's XML nests deeper than %d levels", l.MaxDepth)
			}
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
			depth--
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
