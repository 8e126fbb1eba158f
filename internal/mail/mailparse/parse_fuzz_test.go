package mailparse

import (
	"encoding/json"
	"testing"
)

// FuzzParse feeds arbitrary messages to the MIME parser: it must never
// panic, and what a run receives stays within the
// limits however the message is built.
func FuzzParse(f *testing.F) {
	f.Add([]byte("From: a@b.example\r\nTo: c@d.example\r\nSubject: hi\r\n\r\nbody\r\n"))
	f.Add([]byte("From: =?utf-8?q?Ad=C3=A1?= <a@b.example>\r\nSubject: =?iso-8859-1?q?caf=E9?=\r\nContent-Type: multipart/mixed; boundary=X\r\n\r\n" +
		"--X\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\ncaf=E9\r\n" +
		"--X\r\nContent-Type: multipart/alternative; boundary=Y\r\n\r\n--Y\r\nContent-Type: text/html\r\n\r\n<b>x</b>\r\n--Y--\r\n" +
		"--X\r\nContent-Type: application/pdf; name=\"a.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0=\r\n--X--\r\n"))
	f.Add([]byte("Content-Type: multipart/mixed; boundary=\r\n\r\n--\r\n--\r\n"))
	f.Add([]byte("Content-Type: text/plain; charset=x-unknown\r\nContent-Transfer-Encoding: x-weird\r\n\r\n\xff\xfe"))
	f.Add([]byte("Auto-Submitted: auto-replied\r\nX-Spam-Flag: YES\r\nList-Id: <l.example>\r\n\r\n"))
	f.Add([]byte("\r\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := Parse(raw)
		if err != nil {
			return
		}
		if len(m.Text) > maxBodyBytes || len(m.HTML) > maxBodyBytes || len(m.Attachments) > maxAttachments || len(m.Headers) > maxHeaderFields {
			t.Fatalf("limits passed: text %d html %d attachments %d headers %d", len(m.Text), len(m.HTML), len(m.Attachments), len(m.Headers))
		}
		for _, a := range m.Attachments {
			if len(a.Text) > maxAttachmentText || len(a.Filename) > 255 {
				t.Fatalf("attachment beyond limits: %d %d", len(a.Text), len(a.Filename))
			}
		}
		m.Get("Auto-Submitted")
		if _, err := json.Marshal(m); err != nil {
			t.Fatalf("input does not marshal: %v", err)
		}
	})
}
