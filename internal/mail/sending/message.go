package sending

import (
	"bytes"
	"crypto"
	"fmt"
	"time"

	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-msgauth/dkim"
)

// Identity is who a message is sent as: the domain in From, the key that
// signs for it.
type Identity struct {
	Domain   string
	Selector string
	Signer   crypto.Signer
}

// draft is one copy of a message before signing.
type draft struct {
	From           *mail.Address
	To, Cc         []*mail.Address
	ReplyTo        *mail.Address
	Subject, Body  string
	HTML           bool
	Unsubscribe    string // one-click URL; "" for none
	MessageIDLocal string
	Date           time.Time
	// Traceparent is the sending run's trace context ("" when not
	// traced): the message's Traceparent header, so a receiving system
	// that traces can join the run's trace.
	Traceparent string
}

// signedHeaders are the fields the DKIM signature covers; RFC 8058
// requires List-Unsubscribe and List-Unsubscribe-Post among them.
var signedHeaders = []string{"From", "To", "Cc", "Reply-To", "Subject", "Date", "Message-Id", "Mime-Version",
	"Content-Type", "Content-Transfer-Encoding", "List-Unsubscribe", "List-Unsubscribe-Post", "Auto-Submitted"}

// build writes the copy as an RFC 5322 message (CRLF line ends) and signs it.
func build(d draft, id Identity) ([]byte, error) {
	var h mail.Header
	h.SetDate(d.Date)
	h.SetAddressList("From", []*mail.Address{d.From})
	h.SetAddressList("To", d.To)
	if len(d.Cc) > 0 {
		h.SetAddressList("Cc", d.Cc)
	}
	if d.ReplyTo != nil {
		h.SetAddressList("Reply-To", []*mail.Address{d.ReplyTo})
	}
	h.SetSubject(d.Subject)
	h.SetMessageID(d.MessageIDLocal + "@" + id.Domain)
	// Agent mail is machine-made: receivers (and Agentry's own inbound)
	// must not answer it automatically, which would loop.
	h.Set("Auto-Submitted", "auto-generated")
	if d.Traceparent != "" {
		h.Set("Traceparent", d.Traceparent)
	}
	if d.Unsubscribe != "" {
		h.Set("List-Unsubscribe", "<"+d.Unsubscribe+">")
		h.Set("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
	}
	ct := "text/plain"
	if d.HTML {
		ct = "text/html"
	}
	h.Set("Mime-Version", "1.0")
	h.SetContentType(ct, map[string]string{"charset": "utf-8"})
	h.Set("Content-Transfer-Encoding", "quoted-printable")
	var buf bytes.Buffer
	w, err := mail.CreateSingleInlineWriter(&buf, h)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write([]byte(d.Body)); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(buf.Len() + 1024)
	err = dkim.Sign(&out, &buf, &dkim.SignOptions{Domain: id.Domain, Selector: id.Selector, Signer: id.Signer,
		HeaderCanonicalization: dkim.CanonicalizationRelaxed, BodyCanonicalization: dkim.CanonicalizationRelaxed,
		HeaderKeys: signedHeaders})
	if err != nil {
		return nil, fmt.Errorf("dkim sign: %w", err)
	}
	return out.Bytes(), nil
}
