// Package exports owns source exports: the file formats a source's
// contents are written in (JSON Lines, CSV, Parquet, zip), each a streaming
// writer fed one record at a time so an export never holds a source in
// memory, and the export jobs that write them to the blob store in the
// background (service.go), surviving a restart.
package exports

import (
	"archive/zip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Record is one content item of a source as exported.
type Record struct {
	ID          string         `json:"id"`
	SourceID    string         `json:"source_connection_id"`
	VersionID   string         `json:"content_version_id"`
	Version     int            `json:"version"`
	Title       string         `json:"title"`
	URL         string         `json:"url"`
	ContentType string         `json:"content_type"`
	Status      string         `json:"status"`
	Metadata    map[string]any `json:"metadata"`
	Text        string         `json:"text"`
	CreatedAt   time.Time      `json:"created_at"`
	UpdatedAt   time.Time      `json:"updated_at"`
	PublishedAt *time.Time     `json:"published_at"`
}

// Formats are the export formats, as the API names them.
const (
	JSONL   = "jsonl"
	CSV     = "csv"
	Parquet = "parquet"
	Zip     = "zip"
)

// ErrFormat is a format this package does not write.
var ErrFormat = errors.New("unknown export format (jsonl, csv, parquet or zip)")

// Formats lists the formats.
func Formats() []string { return []string{JSONL, CSV, Parquet, Zip} }

// ContentType is the media type of a format's file.
func ContentType(format string) string {
	switch format {
	case JSONL:
		return "application/x-ndjson"
	case CSV:
		return "text/csv; charset=utf-8"
	case Parquet:
		return "application/vnd.apache.parquet"
	case Zip:
		return "application/zip"
	}
	return "application/octet-stream"
}

// Writer writes records in one format. Close finishes the file (a Parquet
// footer, a zip directory) but does not close the underlying writer.
type Writer interface {
	Write(Record) error
	Close() error
}

// NewWriter starts a file of format on w.
func NewWriter(format string, w io.Writer) (Writer, error) {
	switch format {
	case JSONL:
		return &jsonlWriter{enc: json.NewEncoder(w)}, nil
	case CSV:
		cw := csv.NewWriter(w)
		return &csvWriter{w: cw}, cw.Write(csvHeader)
	case Parquet:
		return newParquetWriter(w), nil
	case Zip:
		return &zipWriter{z: zip.NewWriter(w)}, nil
	}
	return nil, ErrFormat
}

// WriteAll writes every record of recs in format on w and returns how many.
func WriteAll(format string, w io.Writer, recs iter.Seq2[Record, error]) (int, error) {
	fw, err := NewWriter(format, w)
	if err != nil {
		return 0, err
	}
	n := 0
	for r, err := range recs {
		if err != nil {
			return n, err
		}
		if err := fw.Write(r); err != nil {
			return n, err
		}
		n++
	}
	return n, fw.Close()
}

type jsonlWriter struct{ enc *json.Encoder }

func (j *jsonlWriter) Write(r Record) error { return j.enc.Encode(normal(r)) }
func (j *jsonlWriter) Close() error         { return nil }

// normal gives nil metadata as an empty object, so every line has the same shape.
func normal(r Record) Record {
	if r.Metadata == nil {
		r.Metadata = map[string]any{}
	}
	return r
}

var csvHeader = []string{"id", "source_connection_id", "content_version_id", "version", "title", "url", "content_type", "status",
	"metadata", "text", "created_at", "updated_at", "published_at"}

type csvWriter struct{ w *csv.Writer }

func (c *csvWriter) Write(r Record) error {
	meta, err := json.Marshal(normal(r).Metadata)
	if err != nil {
		return err
	}
	pub := ""
	if r.PublishedAt != nil {
		pub = r.PublishedAt.UTC().Format(time.RFC3339)
	}
	row := []string{r.ID, r.SourceID, r.VersionID, strconv.Itoa(r.Version), r.Title, r.URL, r.ContentType, r.Status,
		string(meta), r.Text, r.CreatedAt.UTC().Format(time.RFC3339), r.UpdatedAt.UTC().Format(time.RFC3339), pub}
	for i := range row {
		row[i] = InertCell(row[i])
	}
	if err := c.w.Write(row); err != nil {
		return err
	}
	return c.w.Error()
}

// formulaLeads are the first characters that make a spreadsheet read a
// cell as a formula (OWASP's CSV injection rule: = + - @, tab and carriage
// return), with the full-width forms some spreadsheets treat the same, and
// NUL, which some readers drop before looking.
const formulaLeads = "=+-@\t\r\x00＝＋－＠"

// InertCell neutralises a CSV cell a spreadsheet would evaluate: titles,
// URLs and text come from feeds and crawled pages, which anyone can
// write. A cell starting with a formula character gets a leading single
// quote, which spreadsheets show as text and never evaluate; every other
// cell is written as it is.
func InertCell(s string) string {
	if s == "" {
		return s
	}
	r, _ := utf8.DecodeRuneInString(s)
	if strings.ContainsRune(formulaLeads, r) {
		return "'" + s
	}
	return s
}

func (c *csvWriter) Close() error { c.w.Flush(); return c.w.Error() }

// zipWriter writes each content's text as contents/<id>.txt and, last, a
// manifest.jsonl with every record but its text.
type zipWriter struct {
	z        *zip.Writer
	manifest *os.File // spilled to disk: a source may have millions of contents
}

func (z *zipWriter) Write(r Record) error {
	f, err := z.z.Create("contents/" + r.ID + ".txt")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, r.Text); err != nil {
		return err
	}
	r = normal(r)
	r.Text = ""
	line, err := json.Marshal(struct {
		Record
		Text string `json:"file"`
	}{r, "contents/" + r.ID + ".txt"})
	if err != nil {
		return err
	}
	if z.manifest == nil {
		if z.manifest, err = os.CreateTemp("", "agentry-export-manifest-*"); err != nil {
			return err
		}
	}
	_, err = z.manifest.Write(append(line, '\n'))
	return err
}

func (z *zipWriter) Close() error {
	f, err := z.z.Create("manifest.jsonl")
	if err != nil {
		return err
	}
	if z.manifest != nil {
		defer func() { z.manifest.Close(); os.Remove(z.manifest.Name()) }()
		if _, err := z.manifest.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.Copy(f, z.manifest); err != nil {
			return err
		}
	}
	if err := z.z.Close(); err != nil {
		return fmt.Errorf("finish zip: %w", err)
	}
	return nil
}
