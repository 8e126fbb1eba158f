package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"sort"
	"strings"
)

// MaxUploadSize is the largest file the API accepts (200 MiB).
const MaxUploadSize int64 = 200 << 20

// ErrUploadTooLarge is returned, before anything is sent when the size is
// known, for a file above the limit.
var ErrUploadTooLarge = errors.New("file is larger than the upload limit")

// Upload is a multipart/form-data request with one file.
type Upload struct {
	Method      string // POST when empty
	Field       string // the file's form field; "file" when empty
	FileName    string
	ContentType string // application/octet-stream when empty
	Content     io.Reader
	// Size of Content in bytes; when zero it is found from an *os.File, a
	// Len() or a Seeker, and when it cannot be found the limit is enforced
	// while streaming instead.
	Size int64
	// Metadata is sent as the form field "metadata", a JSON string (nil
	// sends no field). A string or json.RawMessage is sent as it is.
	Metadata any
	Fields   map[string]string // other form fields (title, …)
	// Progress, when set, is called as bytes of the file are sent, with
	// the total (-1 when unknown).
	Progress func(sent, total int64)
	// MaxSize overrides MaxUploadSize (for endpoints with a lower limit).
	MaxSize int64
}

// Upload sends u to path and decodes the JSON response into out. The body
// is produced on the fly through a pipe while the request is sent, so the
// file is never held in memory whole.
func (c *Client) Upload(ctx context.Context, path string, u Upload, out any, opts ...CallOption) error {
	limit := u.MaxSize
	if limit <= 0 {
		limit = MaxUploadSize
	}
	if u.Content == nil {
		return errors.New("upload: no content")
	}
	size := u.Size
	if size == 0 {
		size = sizeOf(u.Content)
	}
	if size > limit {
		return fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrUploadTooLarge, nameOr(u.FileName), size, limit)
	}
	meta, err := metadataField(u.Metadata)
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	method := u.Method
	if method == "" {
		method = http.MethodPost
	}
	req, co, err := c.newRequest(ctx, method, path, pr, mw.FormDataContentType(), opts)
	if err != nil {
		pr.Close()
		return err
	}
	writeErr := make(chan error, 1)
	go func() {
		err := writeMultipart(mw, u, meta, size, limit)
		pw.CloseWithError(err) // nil closes cleanly
		writeErr <- err
	}()
	resp, err := c.send(req, co)
	pr.Close() // unblocks the writer if the server answered early
	if werr := <-writeErr; werr != nil && errors.Is(werr, ErrUploadTooLarge) {
		return werr
	}
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode upload response: %w", err)
	}
	return nil
}

// writeMultipart writes the form: metadata and fields first, so a server
// reading the stream knows them before the file, then the file.
func writeMultipart(mw *multipart.Writer, u Upload, meta string, size, limit int64) error {
	if meta != "" {
		if err := mw.WriteField("metadata", meta); err != nil {
			return err
		}
	}
	keys := make([]string, 0, len(u.Fields))
	for k := range u.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := mw.WriteField(k, u.Fields[k]); err != nil {
			return err
		}
	}
	field := u.Field
	if field == "" {
		field = "file"
	}
	ct := u.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, quoteEscape(field), quoteEscape(u.FileName)))
	h.Set("Content-Type", ct)
	part, err := mw.CreatePart(h)
	if err != nil {
		return err
	}
	total := size
	if total == 0 {
		total = -1
	}
	src := &countingReader{r: u.Content, limit: limit, total: total, progress: u.Progress}
	if _, err := io.Copy(part, src); err != nil {
		return err
	}
	return mw.Close()
}

// countingReader reports progress and enforces the limit for content whose
// size was not known in advance.
type countingReader struct {
	r        io.Reader
	n, limit int64
	total    int64
	progress func(sent, total int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.limit {
		return n, fmt.Errorf("%w: more than %d bytes", ErrUploadTooLarge, c.limit)
	}
	if c.progress != nil && n > 0 {
		c.progress(c.n, c.total)
	}
	return n, err
}

// sizeOf finds the size of common readers without reading them; 0 when
// unknown.
func sizeOf(r io.Reader) int64 {
	switch v := r.(type) {
	case *os.File:
		if st, err := v.Stat(); err == nil && st.Mode().IsRegular() {
			if pos, err := v.Seek(0, io.SeekCurrent); err == nil {
				return st.Size() - pos
			}
			return st.Size()
		}
		return 0
	case interface{ Len() int }:
		return int64(v.Len())
	case io.Seeker:
		cur, err := v.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0
		}
		end, err := v.Seek(0, io.SeekEnd)
		if _, err2 := v.Seek(cur, io.SeekStart); err != nil || err2 != nil {
			return 0
		}
		return end - cur
	}
	return 0
}

func metadataField(m any) (string, error) {
	switch v := m.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case json.RawMessage:
		return string(v), nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("upload metadata: %w", err)
	}
	return string(b), nil
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", "", "\n", "")

func quoteEscape(s string) string { return quoteEscaper.Replace(s) }

func nameOr(s string) string {
	if s == "" {
		return "the file"
	}
	return s
}
