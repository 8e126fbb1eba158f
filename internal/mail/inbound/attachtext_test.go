package inbound

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

func simplePDF(text string) []byte {
	content := "BT /F1 12 Tf 72 712 Td (" + text + ") Tj ET"
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}
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

// Document attachments get their text extracted for the run; the text is
// bounded; what has no extractor, or does not parse, gets none.
func TestAttachmentText(t *testing.T) {
	ctx := context.Background()
	pdf := &Attachment{Filename: "report.pdf", ContentType: "application/pdf", Data: simplePDF("Quarterly revenue rose")}
	if got := attachmentText(ctx, pdf); !strings.Contains(got, "Quarterly revenue rose") {
		t.Fatalf("pdf text %q", got)
	}
	big := &Attachment{Filename: "data.json", ContentType: "application/json",
		Data: []byte(`{"rows": [` + strings.Repeat(`"é row", `, 20000) + `"end"]}`)}
	if got := attachmentText(ctx, big); len(got) == 0 || len(got) > maxExtractedText || !strings.HasPrefix(got, `{"rows"`) {
		t.Fatalf("json text: %d bytes", len(got))
	}
	for _, a := range []*Attachment{
		{Filename: "photo.png", ContentType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n....")},
		{Filename: "broken.pdf", ContentType: "application/pdf", Data: []byte("%PDF-1.4 not really")},
	} {
		if got := attachmentText(ctx, a); got != "" {
			t.Errorf("%s: %q", a.Filename, got)
		}
	}
}
