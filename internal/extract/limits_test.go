package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/extract/extracttest"
)

// allocated runs f and returns the bytes it allocated on the heap in all
// (a sanity check on memory, not a timing).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func wantLimit(t *testing.T, err error, msg string) {
	t.Helper()
	if !errors.Is(err, ErrLimit) || !strings.HasPrefix(err.Error(), "extraction stopped: ") || !strings.Contains(err.Error(), msg) {
		t.Fatalf("got %v, want extraction stopped: …%s…", err, msg)
	}
}

// A PDF of a few hundred KB whose content stream inflates to 256 MiB
// (operands the old reader kept on a stack, all of them) is refused at
// the default limit, reading it in small pieces.
func TestPDFDecompressionBomb(t *testing.T) {
	const n = 128 << 20 // "1 " 128 Mi times: 256 MiB decompressed
	file := extracttest.PDFWithContent(extracttest.Deflated(extracttest.RepeatReader("1 ", n)), "FlateDecode")
	if len(file) > 1<<20 {
		t.Fatalf("the bomb is %d bytes; it should be small", len(file))
	}
	var err error
	alloc := allocated(func() { _, _, err = run(t, "application/pdf", file) })
	wantLimit(t, err, "the PDF's page content exceeds 128 MiB decompressed")
	if alloc > 32<<20 {
		t.Fatalf("extraction allocated %d MiB for a %d KB file", alloc>>20, len(file)>>10)
	}
	t.Logf("%d KB PDF: refused after allocating %.1f MiB", len(file)>>10, float64(alloc)/(1<<20))
}

// The decompression budget is per file: many pages of moderate content
// add up.
func TestPDFBudgetAndTextLimit(t *testing.T) {
	content := []byte(strings.Repeat("BT /F1 12 Tf 0 -14 Td (abc) Tj ET 1 0 0 1 0 -14 cm\n", 100))
	file := extracttest.PDFWithContent(content, "")
	var out bytes.Buffer
	r := bytes.NewReader(file)
	_, err := Limits{MaxDecompressedBytes: 1000}.Extract(context.Background(), "application/pdf", Source{R: r, RA: r, Size: int64(len(file))}, &out)
	wantLimit(t, err, "exceeds 1000 bytes decompressed")
	r = bytes.NewReader(file)
	_, err = Limits{MaxTextBytes: 100}.Extract(context.Background(), "application/pdf", Source{R: r, RA: r, Size: int64(len(file))}, &out)
	wantLimit(t, err, "the extracted text exceeds 100 bytes")
	// A single string longer than the text limit is refused as it is read.
	file = extracttest.PDFWithContent([]byte("BT ("+strings.Repeat("x", 1<<20+1)+") Tj ET"), "")
	r = bytes.NewReader(file)
	_, err = Limits{MaxTextBytes: 100}.Extract(context.Background(), "application/pdf", Source{R: r, RA: r, Size: int64(len(file))}, &out)
	wantLimit(t, err, "a string in the PDF's page content exceeds 1 MiB")
}

// The content scanner reads what the text operators show and skips the
// rest: arrays, escapes, hex strings, dictionaries, inline images.
func TestPDFContentOperators(t *testing.T) {
	content := "q 1 0 0 1 0 0 cm /P <</MCID 0 /Alt (not shown)>> BDC BT /F1 12 Tf 72 720 Td (Hello \\(a\\) \\101\\\nB) Tj ET EMC\n" +
		"BI /W 2 /H 2 /BPC 8 /CS /G ID \x00(\xff[ EI Q\n" +
		"BT /F1 12 Tf 14 TL 72 700 Td [(Wor) -20 (ld) [(!)]] TJ T* <48 69 2> Tj (quoted) ' 0.5 0.1 (dq) \" ET % comment (x) Tj\n" +
		"BT (a) (bb) (ccc) (dddd) (eeeee) /F1 12 Tf 14 TL 72 600 Td (kept) ' ET\n"
	got, res, err := run(t, "application/pdf", extracttest.PDFWithContent(extracttest.Deflated(strings.NewReader(content)), "FlateDecode"))
	if err != nil || res.Extractor != "pdf" {
		t.Fatal(res, err)
	}
	want := "Hello (a) AB\n\nWorld!\nHi\nquoted\ndq\n\nkept"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// A 20 MB "[[[[…" is refused at the nesting limit, at once: the decoder's
// stack never grows past it.
func TestJSONNestingBomb(t *testing.T) {
	bomb := bytes.Repeat([]byte("["), 20<<20)
	var err error
	alloc := allocated(func() { _, _, err = run(t, "application/json", bomb) })
	wantLimit(t, err, "the JSON nests deeper than 1000 levels")
	if alloc > 4<<20 {
		t.Fatalf("allocated %d MiB", alloc>>20)
	}
	t.Logf("20 MB of [: refused after allocating %.2f MiB", float64(alloc)/(1<<20))
	// 1000 levels are fine.
	ok := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	if _, _, err := run(t, "application/json", []byte(ok)); err != nil {
		t.Fatal(err)
	}
	// Objects count too.
	deep := strings.Repeat(`{"a":`, 1001) + "1" + strings.Repeat("}", 1001)
	_, _, err = run(t, "application/json", []byte(deep))
	wantLimit(t, err, "nests deeper than 1000")
}

// Every format stops at the text limit with the same reason.
func TestTextLimitEveryFormat(t *testing.T) {
	long := strings.Repeat("word ", 100)
	for mt, data := range map[string][]byte{
		"text/plain":       []byte(long),
		"text/markdown":    []byte("# " + long),
		"text/csv":         []byte(strings.ReplaceAll(long, " ", ",")),
		"application/json": []byte(`{"a": "` + long + `"}`),
		"text/html":        []byte("<p>" + long + "</p>"),
		"application/pdf":  extracttest.PDF(long),
		MediaDOCX:          extracttest.DOCX(long),
	} {
		r := bytes.NewReader(data)
		var out bytes.Buffer
		_, err := Limits{MaxTextBytes: 200}.Extract(context.Background(), mt, Source{R: r, RA: r, Size: int64(len(data))}, &out)
		if !errors.Is(err, ErrLimit) || err.Error() != "extraction stopped: the extracted text exceeds 200 bytes" {
			t.Errorf("%s: %v", mt, err)
		}
		if out.Len() > 200 {
			t.Errorf("%s: wrote %d bytes", mt, out.Len())
		}
	}
}

func TestDOCXBombs(t *testing.T) {
	// An entry that inflates past the budget.
	big := extracttest.DOCXWithXML(`<w:document><w:body><w:p><w:r><w:t>` + strings.Repeat("a", 1<<20) + `</w:t></w:r></w:p></w:body></w:document>`)
	r := bytes.NewReader(big)
	_, err := Limits{MaxDecompressedBytes: 64 << 10}.Extract(context.Background(), MediaDOCX, Source{R: r, RA: r, Size: int64(len(big))}, io.Discard)
	wantLimit(t, err, "the DOCX's word/document.xml exceeds 65536 bytes decompressed")

	// Elements nested past the depth limit.
	deep := extracttest.DOCXWithXML(strings.Repeat("<a>", 1001) + strings.Repeat("</a>", 1001))
	_, _, err = run(t, MediaDOCX, deep)
	wantLimit(t, err, "the DOCX's XML nests deeper than 1000 levels")

	// More entries than the limit, whatever the end record claims.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i <= DefaultMaxArchiveEntries; i++ {
		zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprint(i), Method: zip.Store})
	}
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte(`<w:document/>`))
	zw.Close()
	_, _, err = run(t, MediaDOCX, buf.Bytes())
	wantLimit(t, err, "the DOCX archive has more than 10000 entries")
}

// A few bytes that declare object numbers in the hundreds of millions
// made the PDF library allocate a cross-reference table for all of them
// (6 GB for 200,000,000): such files are refused before it reads them.
func TestPDFObjectNumberBombs(t *testing.T) {
	valid := string(extracttest.PDF("hello"))
	xref, trailer := strings.Index(valid, "xref\n"), strings.Index(valid, "trailer")
	for name, file := range map[string]string{
		"table subsection": valid[:trailer] + "200000000 1\n0000000009 00000 n \n" + valid[trailer:],
		"trailer size":     strings.Replace(valid, "/Size 6", "/Size 3000000000", 1),
		"escaped name":     strings.Replace(valid, "/Size 6", "/Si#7Ae 99999999999999999999999", 1),
		"xref stream":      valid[:xref] + "9 0 obj\n<< /Type /XRef /Size 6 /Index [0 6 150000000 2] /W [1 2 1] /Length 0 >>\nstream\n\nendstream\nendobj\n" + valid[xref:],
	} {
		var err error
		alloc := allocated(func() { _, _, err = run(t, "application/pdf", []byte(file)) })
		if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "(at most 2000000 are read)") {
			t.Errorf("%s: %v", name, err)
		}
		if alloc > 4<<20 {
			t.Errorf("%s: allocated %d MiB", name, alloc>>20)
		}
	}
	// The check reads the real thing as it is.
	if got, _, err := run(t, "application/pdf", []byte(valid)); err != nil || got != "hello" {
		t.Fatalf("%q %v", got, err)
	}
}

// pdfOf builds a PDF from object bodies (object 1 is the catalog); a body
// may hold a stream.
func pdfOf(objects ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, body := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, body)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

func streamObj(data string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(data), data)
}

// A font with a character map (two-byte codes, as CID fonts have) is
// decoded through it, and a map past its limit is refused before the
// library interprets it.
func TestPDFCharacterMaps(t *testing.T) {
	build := func(cmap string) []byte {
		return pdfOf(
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
			"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /ToUnicode 6 0 R >>",
			streamObj("BT /F1 12 Tf <00010002> Tj [<0002>] TJ ET"),
			streamObj(cmap),
		)
	}
	cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n1 begincodespacerange <0000> <FFFF> endcodespacerange\n" +
		"2 beginbfchar <0001> <0048> <0002> <0069> endbfchar\nendcmap CMapName currentdict /CMap defineresource pop end end"
	got, _, err := run(t, "application/pdf", build(cmap))
	if err != nil || got != "Hii" {
		t.Fatalf("%q %v", got, err)
	}
	huge := cmap + "\n%" + strings.Repeat("x", maxCMapBytes)
	_, _, err = run(t, "application/pdf", build(huge))
	wantLimit(t, err, "a font's character map in the PDF exceeds 4 MiB decompressed")
}

// Object streams are inflated by the PDF library itself, when it looks an
// object up: they are measured beforehand, through the same budget.
func TestPDFObjectStreamBomb(t *testing.T) {
	valid := string(extracttest.PDF("hello"))
	xref := strings.Index(valid, "xref\n")
	with := func(dict string, data []byte) []byte {
		obj := fmt.Sprintf("9 0 obj\n<< %s /N 1 /First 4 /Length %d >>\nstream\n", dict, len(data)) + string(data) + "\nendstream\nendobj\n"
		return []byte(valid[:xref] + obj + valid[xref:])
	}
	bomb := extracttest.Deflated(extracttest.RepeatReader("\x00", 1<<20))
	for name, file := range map[string][]byte{
		"flate":        with("/Type /ObjStm /Filter /FlateDecode", bomb),
		"array":        with("/Type /ObjStm /Filter [/FlateDecode]", bomb),
		"escaped type": with("/Type /Obj#53tm /Filter /FlateDecode", bomb),
		"xref stream":  with("/Type /XRef /Filter /FlateDecode /W [1 1 1]", bomb),
	} {
		r := bytes.NewReader(file)
		_, err := Limits{MaxDecompressedBytes: 64 << 10}.Extract(context.Background(), "application/pdf", Source{R: r, RA: r, Size: int64(len(file))}, io.Discard)
		if !errors.Is(err, ErrLimit) || err.Error() != "extraction stopped: the PDF's object stream data exceeds 65536 bytes decompressed" {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Within the budget, the file reads as before.
	file := pdfOf(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
		streamObj("BT (hello) Tj ET"),
		fmt.Sprintf("<< /Type /ObjStm /Filter /FlateDecode /N 1 /First 4 /Length %d >>\nstream\n%s\nendstream", len(bomb), bomb),
	)
	got, _, err := run(t, "application/pdf", file)
	if err != nil || got != "hello" {
		t.Fatalf("%q %v", got, err)
	}
	// Filters that are not measured are refused for object streams.
	_, _, err = run(t, "application/pdf", with("/Type /ObjStm /Filter [/ASCIIHexDecode /FlateDecode]", []byte("78")))
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "object streams use filters") {
		t.Fatal(err)
	}
}
