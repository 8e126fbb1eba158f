package sending

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/emersion/go-message"
	"github.com/google/uuid"
)

// Late bounces. A receiving server that accepted a copy (the job recorded
// it sent) may refuse it later with a delivery status notification (RFC
// 3464) to the envelope sender, which is the agent's own address, so it
// arrives through inbound mail. Every copy's Message-ID is
// <delivery id@domain>, and a DSN quotes the headers of the message it is
// about, so the notification names the copy it reports on; its
// Final-Recipient must be that copy's recipient too.

// DSN is what a delivery status notification reports about one copy.
type DSN struct {
	// DeliveryID is the copy's id, read from the quoted Message-ID.
	DeliveryID string
	// Recipient is the Final-Recipient (or Original-Recipient) address.
	Recipient string
	// Action is failed, delayed, delivered, relayed or expanded.
	Action string
	// Status is the enhanced status code (5.1.1); Code its SMTP class
	// as a reply code (550 for 5.x.x, 450 for 4.x.x).
	Status     string
	Code       int
	Diagnostic string
}

// Bounds on what a DSN may make the parser read.
const (
	maxDSNParts      = 20
	maxDSNStatusPart = 64 << 10
	maxDSNRecipients = 50
)

var errNotDSN = errors.New("not a delivery status notification")

// ParseDSN reads a multipart/report; report-type=delivery-status message.
// It answers the failed (or else the first) recipient's report, with the
// copy's id when the quoted headers carry one of Agentry's Message-IDs.
func ParseDSN(raw []byte) (DSN, error) {
	ent, err := message.Read(bytes.NewReader(raw))
	if ent == nil {
		return DSN{}, errNotDSN
	}
	_ = err // unknown charsets and encodings do not matter here
	ct, params, _ := ent.Header.ContentType()
	if !strings.EqualFold(ct, "multipart/report") || !strings.EqualFold(params["report-type"], "delivery-status") {
		return DSN{}, errNotDSN
	}
	mr := ent.MultipartReader()
	if mr == nil {
		return DSN{}, errNotDSN
	}
	var (
		out   DSN
		found bool
	)
	for i := 0; i < maxDSNParts; i++ {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			break
		}
		pct, _, _ := p.Header.ContentType()
		switch strings.ToLower(pct) {
		case "message/delivery-status", "message/global-delivery-status":
			b, _ := io.ReadAll(io.LimitReader(p.Body, maxDSNStatusPart))
			if d, ok := parseStatusFields(b); ok {
				d.DeliveryID = out.DeliveryID
				out, found = d, true
			}
		case "text/rfc822-headers", "message/rfc822", "message/global", "message/global-headers":
			// Only the quoted header is read (the body may be anything).
			r := textproto.NewReader(bufio.NewReader(io.LimitReader(p.Body, maxDSNStatusPart)))
			h, _ := r.ReadMIMEHeader()
			if id := deliveryIDOf(h.Get("Message-Id")); id != "" {
				out.DeliveryID = id
			}
		}
	}
	if !found {
		return DSN{}, errNotDSN
	}
	return out, nil
}

// parseStatusFields reads the per-message block and the per-recipient
// blocks of a message/delivery-status body, keeping the first failed
// recipient (or the first recipient when none failed).
func parseStatusFields(b []byte) (DSN, bool) {
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(b)))
	if _, err := r.ReadMIMEHeader(); err != nil && err != io.EOF { // per-message fields
		return DSN{}, false
	}
	var (
		best DSN
		ok   bool
	)
	for i := 0; i < maxDSNRecipients; i++ {
		h, err := r.ReadMIMEHeader()
		if len(h) > 0 {
			d := DSN{Recipient: addressField(h.Get("Final-Recipient")), Action: strings.ToLower(strings.TrimSpace(h.Get("Action"))),
				Status: strings.TrimSpace(h.Get("Status")), Diagnostic: strings.TrimSpace(h.Get("Diagnostic-Code"))}
			if d.Recipient == "" {
				d.Recipient = addressField(h.Get("Original-Recipient"))
			}
			if d.Status != "" {
				if class, err := strconv.Atoi(strings.SplitN(d.Status, ".", 2)[0]); err == nil && (class == 4 || class == 5) {
					d.Code = class*100 + 50
				}
			}
			if d.Recipient != "" && (!ok || (best.Action != "failed" && d.Action == "failed")) {
				best, ok = d, true
			}
		}
		if err != nil {
			break
		}
	}
	return best, ok
}

// addressField reads "rfc822; user@example.org" (the address type is
// optional in practice).
func addressField(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = strings.TrimSpace(v[i+1:])
	}
	v = strings.Trim(v, "<>")
	if !strings.Contains(v, "@") || len(v) > 254 {
		return ""
	}
	return strings.ToLower(v)
}

// deliveryIDOf reads the copy id out of <id@domain>, when it is one.
func deliveryIDOf(messageID string) string {
	v := strings.Trim(strings.TrimSpace(messageID), "<>")
	at := strings.LastIndexByte(v, '@')
	if at <= 0 {
		return ""
	}
	if uuid.Validate(v[:at]) != nil {
		return ""
	}
	return strings.ToLower(v[:at])
}

// LateBounce records what a delivery status notification that arrived
// for one of the account's agents reports: a failed copy of the
// account's becomes bounced, with the status and the receiver's
// diagnostic. It reports whether the message was such a notification
// about one of the account's copies (handled, so it starts no run); a
// notification that names no copy of the account is not handled.
func (s *Service) LateBounce(ctx context.Context, accountID string, raw []byte) (bool, error) {
	d, err := ParseDSN(raw)
	if err != nil || d.DeliveryID == "" {
		return false, nil
	}
	if d.Action != "failed" {
		// delayed, delivered, relayed: nothing to record, but it is about
		// the copy, not for the agent.
		known, err := s.repo.deliveryOf(ctx, accountID, d.DeliveryID, d.Recipient)
		return known, err
	}
	code := d.Code
	if code == 0 {
		code = 550
	}
	detail := "late bounce (delivery status notification)"
	if d.Status != "" {
		detail += ": " + d.Status
	}
	if d.Diagnostic != "" {
		detail += " " + d.Diagnostic
	}
	return s.repo.recordLateBounce(ctx, accountID, d.DeliveryID, d.Recipient, code, truncate(detail, 1000))
}
