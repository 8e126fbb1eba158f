// Package mailparse reads inbound messages (MIME, with go-message): the
// header, text and HTML bodies and attachments a run receives, within
// bounds whatever the sender built.
package mailparse

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // decodes the legacy charsets senders still use
	"github.com/emersion/go-message/mail"
)

// Parse limits: a message is bounded by the listener's size limit already;
// these bound what one message can make a run carry.
const (
	maxParts          = 200
	maxAttachments    = 20
	maxBodyBytes      = 1 << 20  // text or HTML body kept for the run
	maxAttachmentText = 64 << 10 // text of a text/* attachment inlined into the input
	maxHeaderFields   = 200
	maxHeaderValue    = 4 << 10
)

// Message is a parsed inbound message.
type Message struct {
	MessageID   string              `json:"message_id"`
	Subject     string              `json:"subject"`
	From        string              `json:"from"`
	To          []string            `json:"to"`
	Cc          []string            `json:"cc"`
	ReplyTo     string              `json:"reply_to,omitempty"`
	Date        string              `json:"date,omitempty"`
	InReplyTo   string              `json:"in_reply_to,omitempty"`
	Headers     map[string][]string `json:"headers"`
	Text        string              `json:"text"`
	HTML        string              `json:"html"`
	Attachments []Attachment        `json:"attachments"`
	// Truncated notes what the limits cut (parts, bodies, attachments).
	Truncated bool `json:"truncated,omitempty"`

	header mail.Header
}

// Attachment is one attached file; Data is stored as a blob, the rest is
// what steps see.
type Attachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	BlobKey     string `json:"blob_key,omitempty"`
	Text        string `json:"text,omitempty"` // text/* attachments, up to 64 KiB
	Data        []byte `json:"-"`
}

// Get returns a header field's first value (decoded); protect's checks
// read the header through it.
func (m *Message) Get(key string) string { return m.header.Get(key) }

// Parse reads a message: its header, its text and HTML bodies (the first
// of each that is not an attachment) and its attachments, walking nested
// multiparts. Unknown charsets and encodings keep what can be read; a
// message whose header cannot be read at all is an error.
func Parse(raw []byte) (*Message, error) {
	ent, err := message.Read(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err) {
		if ent == nil {
			return nil, err
		}
	}
	if ent == nil {
		return nil, errors.New("unreadable message")
	}
	h := mail.Header{Header: ent.Header}
	m := &Message{header: h, Headers: map[string][]string{}, To: []string{}, Cc: []string{}, Attachments: []Attachment{}}
	m.MessageID, _ = h.MessageID()
	m.Subject, _ = h.Subject()
	if m.Subject == "" {
		m.Subject = h.Get("Subject")
	}
	m.From = firstAddress(h, "From")
	m.ReplyTo = firstAddress(h, "Reply-To")
	m.To = addresses(h, "To")
	m.Cc = addresses(h, "Cc")
	if d, err := h.Date(); err == nil && !d.IsZero() {
		m.Date = d.UTC().Format("2006-01-02T15:04:05Z")
	}
	if ids, err := h.MsgIDList("In-Reply-To"); err == nil && len(ids) > 0 {
		m.InReplyTo = ids[0]
	}
	fields := h.Fields()
	for n := 0; fields.Next(); n++ {
		if n >= maxHeaderFields {
			m.Truncated = true
			break
		}
		v, err := fields.Text()
		if err != nil {
			v = fields.Value()
		}
		m.Headers[fields.Key()] = append(m.Headers[fields.Key()], Clip(v, maxHeaderValue))
	}

	parts := 0
	err = ent.Walk(func(path []int, e *message.Entity, err error) error {
		if err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err) {
			return err
		}
		if parts++; parts > maxParts {
			m.Truncated = true
			return errStop
		}
		if e.MultipartReader() != nil {
			return nil
		}
		m.addPart(e)
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		// A broken part ends the walk; what came before it is kept.
		m.Truncated = true
	}
	return m, nil
}

var errStop = errors.New("stop")

func (m *Message) addPart(e *message.Entity) {
	ct, ctParams, _ := e.Header.ContentType()
	if ct == "" {
		ct = "text/plain"
	}
	disp, dParams, _ := e.Header.ContentDisposition()
	filename := dParams["filename"]
	if filename == "" {
		filename = ctParams["name"]
	}
	if filename != "" {
		if dec, err := new(mime.WordDecoder).DecodeHeader(filename); err == nil {
			filename = dec
		}
	}
	inline := disp != "attachment" && filename == ""
	switch {
	case inline && ct == "text/plain" && m.Text == "":
		m.Text = m.readText(e.Body)
		return
	case inline && ct == "text/html" && m.HTML == "":
		m.HTML = m.readText(e.Body)
		return
	}
	if len(m.Attachments) >= maxAttachments {
		m.Truncated = true
		return
	}
	data, err := io.ReadAll(e.Body)
	if err != nil && len(data) == 0 {
		m.Truncated = true
		return
	}
	if filename == "" {
		filename = "part-" + itoa(len(m.Attachments)+1)
	}
	a := Attachment{Filename: Clip(filename, 255), ContentType: ct, Size: int64(len(data)), Data: data}
	if strings.HasPrefix(ct, "text/") && utf8.Valid(data) {
		a.Text = Clip(string(data), maxAttachmentText)
	}
	m.Attachments = append(m.Attachments, a)
}

func (m *Message) readText(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, maxBodyBytes+1))
	if len(b) > maxBodyBytes {
		m.Truncated = true
		b = b[:maxBodyBytes]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func firstAddress(h mail.Header, key string) string {
	if list, err := h.AddressList(key); err == nil && len(list) > 0 {
		return strings.ToLower(list[0].Address)
	}
	return ""
}

func addresses(h mail.Header, key string) []string {
	out := []string{}
	list, err := h.AddressList(key)
	if err != nil {
		return out
	}
	for i, a := range list {
		if i >= 100 {
			break
		}
		out = append(out, strings.ToLower(a.Address))
	}
	return out
}

// Clip cuts s to at most n bytes on a UTF-8 boundary.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
